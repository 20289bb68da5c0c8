#!/bin/bash
# slotless-frees.sh - a thread that allocated without a thread slot and
# frees with one (a slot came free meanwhile) records frees of blocks the
# trace never saw: they are frees of unrecorded blocks, not unmatched
# frees (the recorder writes an UNRECORDING record, at a sequence number
# of its own, before the first allocation made without a slot).  And a
# thread without a slot that frees a recorded block records the free (in
# the metadata stream): the block is not left live.  Workers 0-39 hold the
# 40 slots left, 40-79 allocate without one and free with one, and free
# the main thread's blocks without one, and realloc others without one
# (the old block's release recorded).
# Program and facts: tests/progs/slotless_frees.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/slotless_frees" "$PROGS_DIR/slotless_frees.c" -pthread

# 42 slots of 128 KiB under 700,000 KiB of address space, one malloc arena:
# as in slotless-threads.sh
MPROF_RING_KIB=128 mprof_run 120 "$WORK/trace" -- bash -c 'ulimit -v 700000 && MALLOC_ARENA_MAX=1 exec "$@"' - \
	"$WORK/slotless_frees"
expect_eq "exit status" 0 "$RUN_STATUS"
expect_eq "stdout" "slotless_frees done" "$(cat "$RUN_OUT")"
report_json "$WORK/r.json" "$(ls "$WORK"/trace.[0-9]* | head -n 1)" || finish
R="$WORK/r.json"
expect_eq "thread slots" 42 "$(q "$R" summary meta.slots)"
expect_site "$R" crowd_alloc 2000 48000 0 0
expect_eq "unrecorded allocations: workers 40-79's crowd_alloc and moved blocks" 2040 \
	"$(q "$R" summary quality.unrecorded_allocations)"
expect_eq "unmatched frees" 0 "$(q "$R" summary unmatched_frees)"
expect_eq "frees of unrecorded blocks: workers 40-79's, with a slot" 2040 \
	"$(q "$R" summary frees_of_unrecorded_blocks)"
expect_eq "unrecorded frees" 0 "$(q "$R" summary quality.unrecorded_frees)"
expect_site "$R" handed_alloc 40 2240 0 0
expect_site "$R" later_alloc 2000 80000 0 0
# a realloc without a slot: the old block's release is recorded, so it is
# not left live (the new block is unrecorded)
expect_site "$R" moved_alloc 40 2880 0 0
# every free recorded: no leaked block is qualified as maybe freed
expect_eq "no leaked block maybe freed" 0 "$(q "$R" summary quality.leaked_blocks_maybe_freed)"
run_cmd 60 text "$MPROF" report "$(ls "$WORK"/trace.[0-9]* | head -n 1)"
expect_eq "text: the leaked line is not at most" 0 "$(grep -c 'may have been freed\|^leaked: *at most' "$RUN_OUT")"
finish
