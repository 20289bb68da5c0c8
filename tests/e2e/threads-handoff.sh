#!/bin/bash
# threads-handoff.sh - 4 threads free each other's blocks with heavy address
# reuse; merged in exact order, every free matches its allocation: exact
# totals, nothing live at exit, no unmatched free.
# Program and facts: tests/progs/thread_handoff.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/thread_handoff" "$PROGS_DIR/thread_handoff.c" -pthread

mprof_run 120 "$WORK/trace" -- "$WORK/thread_handoff"
expect_eq "exit status" 0 "$RUN_STATUS"
expect_eq "stdout" "handed over: 100000, checksum ok" "$(cat "$RUN_OUT")"
report_json "$WORK/r.json" "$WORK/trace"
R="$WORK/r.json"
expect_site "$R" produce_block 100000 3949360 0 0
expect_eq "produce_block: temporary allocations (every block is freed by another thread)" 0 \
	"$(q "$R" sum temporary produce_block)"
expect_range "produce_block: blocks at peak (at most 4 queues of 16 + 4 in hand)" 0 68 \
	"$(q "$R" sum peak_blocks produce_block)"
expect_eq "summary: unmatched frees" 0 "$(q "$R" summary unmatched_frees)"
finish
