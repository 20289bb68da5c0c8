#!/bin/bash
# crowd-wait.sh - 1500 threads alive at once and 42 thread slots (under an
# RLIMIT_AS, as slotless-threads.sh): when the threads that had a slot
# end, the others claim their slots as the launcher frees them, waiting
# for them.  Before, every waiting thread scanned every slot under the
# pool lock and napped every millisecond, and every 10 ms asked the kernel
# about every thread the recorder knew (a tgkill each): the run took 16 s
# and 32 s of processor time here (3000 threads: still running after 11
# minutes; 8000 threads and 4096 slots: 65 s of wall time instead of 0.8 s,
# bench/HISTORY.md).  Now waiting claims share a scan that found nothing
# and the reap, and nap longer the more of them wait: 0.1-0.5 s of
# processor time.  The bound below, 5 s for the run (launcher included),
# leaves room for a loaded machine; the counts are exact: recorded +
# unrecorded = made, nothing unmatched.
# Program and facts: tests/progs/crowd_wait.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/crowd_wait" "$PROGS_DIR/crowd_wait.c" -pthread

# 42 slots of 128 KiB under 700,000 KiB of address space, one malloc arena
# (see slotless-threads.sh)
RUN_RSS=1 MPROF_RING_KIB=128 mprof_run 120 "$WORK/trace" -- \
	bash -c 'ulimit -v 700000 && MALLOC_ARENA_MAX=1 exec "$@"' - "$WORK/crowd_wait" 1500
expect_eq "exit status" 0 "$RUN_STATUS"
expect_eq "stdout" "crowd_wait 1500 done" "$(cat "$RUN_OUT")"
expect_range "processor time of the run, ms (before: some 32000)" 0 5000 \
	"$(cat "$RUN_RSS_FILE.cpu")"
report_json "$WORK/r.json" "$(ls "$WORK"/trace.[0-9]* | head -n 1)" || finish
R="$WORK/r.json"
expect_eq "thread slots" 42 "$(q "$R" summary meta.slots)"
crowd=$(q "$R" sum allocations crowd_alloc)
unrecorded=$(q "$R" summary quality.unrecorded_allocations)
expect_eq "crowd_alloc: recorded + unrecorded = made" 12000 $((crowd + unrecorded))
expect_eq "unmatched frees" 0 "$(q "$R" summary unmatched_frees)"
expect_eq "unrecorded frees: none (a slotless thread's go to the meta stream)" 0 \
	"$(q "$R" summary quality.unrecorded_frees)"
finish
