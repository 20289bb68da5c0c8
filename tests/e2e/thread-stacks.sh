#!/bin/bash
# thread-stacks.sh - the recorder's resident memory per thread for a thread
# that records a few dozen distinct call stacks.  Each thread's cache of
# stacks by call site gave each stack an entry of 1184 bytes 18.9 KB from
# the next: 64 threads recording 24 more stacks each grew by 70 KiB a
# thread (memcached -t 256, idle after start, took x1.85 of its peak RSS),
# then by 10 KiB; and each thread's state, the unwinder's memo, the cache
# and the ring's first page took 45 KiB a thread above the unprofiled
# program from the threads' start.  Now a thread that has made fewer than
# 32 captures has no memo and no cache, and touches two pages of its state
# and one of its ring: 0 KiB for the 24 stacks, 14 KiB in all.  The bounds
# (4 and 24 KiB) leave a margin either way.  The program measures itself
# between barriers (no timing).
# Program and facts: tests/progs/thread_stacks.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/thread_stacks" "$PROGS_DIR/thread_stacks.c" -pthread

run_cmd 60 native "$WORK/thread_stacks"
expect_eq "unprofiled: exit status" 0 "$RUN_STATUS"
expect_eq "unprofiled: threads and stacks" "threads 64 stacks 24" "$(head -n 1 "$RUN_OUT")"
native_kib=$(sed -n 's/^growth_per_thread_kib //p' "$RUN_OUT")
expect_range "unprofiled: growth per thread (KiB)" 0 4 "$native_kib"
native_total_kib=$(sed -n 's/^total_per_thread_kib //p' "$RUN_OUT")
expect_range "unprofiled: memory per thread in all (KiB)" 0 64 "$native_total_kib"

mprof_run 120 "$WORK/trace" -- "$WORK/thread_stacks"
expect_eq "exit status" 0 "$RUN_STATUS"
expect_eq "threads and stacks" "threads 64 stacks 24" "$(head -n 1 "$RUN_OUT")"
kib=$(sed -n 's/^growth_per_thread_kib //p' "$RUN_OUT")
expect_range "recorded: growth per thread for 24 more stacks (KiB)" 0 4 "$kib"
total_kib=$(sed -n 's/^total_per_thread_kib //p' "$RUN_OUT")
expect_range "recorded: memory per thread in all, above the unprofiled (KiB)" 0 24 \
	"$((${total_kib:-0} - ${native_total_kib:-0}))"

report_json "$WORK/r.json" "$WORK/trace"
R="$WORK/r.json"
expect_eq "the threads' allocations, all recorded" 1600 "$(q "$R" sum allocations nest)"
expect_eq "sites in nest: one per depth" 25 "$(q "$R" sites nest)"
finish
