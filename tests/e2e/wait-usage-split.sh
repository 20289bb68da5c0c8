#!/bin/bash
# wait-usage-split.sh - a wait4 or wait3 whose rusage pointer runs into a
# page the kernel cannot write reaps the child, fails with EFAULT and
# leaves the child's usage in the bytes before the page, as without mprof.
# Before, the wrapper's check of the pointer (a getrusage of the process
# itself) left this process's own usage there (helper-223, session 61).
# Program and facts: tests/progs/wait_usage_split.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/wait_usage_split" "$PROGS_DIR/wait_usage_split.c"

expected="wait4: -1 EFAULT, status 7, child's utime yes, maxrss written yes
wait3: -1 EFAULT, status 7, child's utime yes, maxrss written yes
again: ECHILD"
"$WORK/wait_usage_split" >"$WORK/native.out" 2>&1
expect_eq "without mprof" "$expected" "$(cat "$WORK/native.out")"
RUN_NAME=wus mprof_run 60 "$WORK/t" -- "$WORK/wait_usage_split"
expect_eq "exit status" 0 "$RUN_STATUS"
expect_eq "stdout as without mprof" "$expected" "$(cat "$RUN_OUT")"
finish
