#!/bin/bash
# slotless-threads.sh - more threads alive at once than the recorder has
# thread slots (80 threads, 42 slots under an RLIMIT_AS): a thread without
# a slot goes unrecorded, every one of its allocations counted as such
# (recorded + unrecorded = made, exactly), and no longer tries to claim a
# slot on each call (it took the pool lock and scanned every slot: with
# 4096 slots and 5000 threads the program ran 6 times slower than natively,
# bench/HISTORY.md) until a slot is released: the threads still alive when
# others have ended get one, and all their later allocations are recorded.
# Program and facts: tests/progs/slotless_threads.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/slotless_threads" "$PROGS_DIR/slotless_threads.c" -pthread

# 700,000 KiB of address space: rings within a 128th of it, 42 slots of 128 KiB
# (preload/settings.c, preload_settings_slots), set in the program's process (see
# thread-churn.sh).  One malloc arena: 80 threads' arenas of 64 MiB each
# do not fit the limit beside the recorder's mappings (malloc failed).
MPROF_RING_KIB=128 mprof_run 120 "$WORK/trace" -- bash -c 'ulimit -v 700000 && MALLOC_ARENA_MAX=1 exec "$@"' - \
	"$WORK/slotless_threads"
expect_eq "exit status" 0 "$RUN_STATUS"
expect_eq "stdout" "slotless_threads done" "$(cat "$RUN_OUT")"
expect_eq "the note on thread slots" 1 \
	"$(grep -c '^mprof: process [0-9]*: more threads were alive at once than the recorder has thread slots; allocations of the threads without a slot are not recorded (see unrecorded allocations)$' "$RUN_ERR")"
report_json "$WORK/r.json" "$(ls "$WORK"/trace.[0-9]* | head -n 1)" || finish
R="$WORK/r.json"
expect_eq "thread slots" 42 "$(q "$R" summary meta.slots)"
crowd=$(q "$R" sum allocations crowd_alloc)
unrecorded=$(q "$R" summary quality.unrecorded_allocations)
expect_match "crowd_alloc: some allocations recorded" '^[1-9][0-9]*$' "$crowd"
expect_match "some allocations unrecorded" '^[1-9][0-9]*$' "$unrecorded"
expect_eq "crowd_alloc: recorded + unrecorded = made" 4000 $((crowd + unrecorded))
expect_site "$R" later_alloc 1000 40000 0 0
expect_eq "crowd_alloc: nothing live at exit" 0 "$(q "$R" sum leaked_blocks crowd_alloc)"
expect_eq "unmatched frees" 0 "$(q "$R" summary unmatched_frees)"
expect_eq "frees of unrecorded blocks: all recorded" "$unrecorded" \
	"$(q "$R" summary frees_of_unrecorded_blocks)"
expect_eq "unrecorded frees: none (a slotless thread's go to the meta stream)" 0 \
	"$(q "$R" summary quality.unrecorded_frees)"
finish
