#!/bin/bash
# sandbox-fork-child.sh - a program whose seccomp filter kills the process
# on getppid forks children that exit without an exec, under mprof as
# without it: each exits 7.  The recorder's fork handler read the child's
# pids (pidns_view_read) with a getppid, also under a filter, where the
# child records nothing: each child was killed by SIGSYS in the handler.
# Under a filter the child now asks no getppid (and reads no /proc file).
# Program and facts: tests/progs/sandbox_fork_child.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/sandbox_fork_child" "$PROGS_DIR/sandbox_fork_child.c"
want="child 1: exit 7
child 2: exit 7
child 3: exit 7"

run_cmd 30 native "$WORK/sandbox_fork_child"
[ "$RUN_STATUS" = 0 ] || skip "seccomp filters are refused here: $(head -c 300 "$WORK/native.err")"
expect_eq "native: stdout" "$want" "$(cat "$WORK/native.out")"

mprof_run 60 "$WORK/t" -- "$WORK/sandbox_fork_child"
expect_eq "mprof run: exit status" 0 "$RUN_STATUS"
# (before: each line said "signal 31")
expect_eq "mprof run: stdout" "$want" "$(cat "$RUN_OUT")"
expect_match "mprof run: the children are named as not recorded" \
	"3 processes forked by process [0-9]+ .* are not recorded: they were forked under a seccomp filter" \
	"$(cat "$RUN_ERR")"
finish
