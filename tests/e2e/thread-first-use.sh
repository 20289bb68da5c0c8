#!/bin/bash
# thread-first-use.sh - threads whose first allocation is made by
# pthread_getattr_np while it holds the thread's lock (as Rust's, the JVM's
# and Ruby's threads do), one of them on a stack of the program's own: the
# run ends (it hung when the shim learnt stack bounds with
# pthread_getattr_np), every allocation is recorded and its stack is walked
# up to the thread's start routine.
# Program and facts: tests/progs/thread_first_use.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/thread_first_use" "$PROGS_DIR/thread_first_use.c" -pthread

mprof_run 60 "$WORK/trace" -- "$WORK/thread_first_use"
expect_eq "exit status" 0 "$RUN_STATUS"
expect_eq "stdout" "threads done: 5" "$(cat "$RUN_OUT")"
report_json "$WORK/r.json" "$WORK/trace"
R="$WORK/r.json"
expect_site "$R" alloc_in_thread 125 8000 0 0
expect_eq "alloc_in_thread: called from" "thread_main" "$(q "$R" caller alloc_in_thread)"
expect_eq "summary: unrecorded allocations" 0 "$(q "$R" summary quality.unrecorded_allocations)"
finish
