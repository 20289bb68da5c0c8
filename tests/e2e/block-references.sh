#!/bin/bash
# block-references.sh - blocks freed long after their allocation and their
# chunks reused at once (the trace names both by size class), a calloc burst
# that reuses chunks out of the cache's order, and many temporary blocks:
# exact per-site counts and no unmatched free, with the default ring and with
# the smallest ring (64 KiB), which wraps several times during the run so
# that lap starts fall between a free's lookup and its record.
# Program and facts: tests/progs/old_block_reuse.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/old_block_reuse" "$PROGS_DIR/old_block_reuse.c"

for ring in default 64; do
	if [ "$ring" = default ]; then
		RUN_NAME=run-default mprof_run 120 "$WORK/trace-$ring" -- "$WORK/old_block_reuse"
	else
		MPROF_RING_KIB=$ring RUN_NAME=run-$ring \
			mprof_run 120 "$WORK/trace-$ring" -- "$WORK/old_block_reuse"
	fi
	expect_eq "ring $ring: exit status" 0 "$RUN_STATUS"
	expect_eq "ring $ring: stdout" "reused 3000 blocks" "$(cat "$RUN_OUT")"
	report_json "$WORK/r-$ring.json" "$WORK/trace-$ring" || continue
	R="$WORK/r-$ring.json"
	expect_site "$R" make_block 3000 578400 0 0
	expect_site "$R" remake_block 12000 2313600 1500 289200
	expect_site "$R" burst_block 534 21360 0 0
	expect_site "$R" temp_block 20000 640000 0 0
	expect_eq "ring $ring: temp_block: temporary allocations" 20000 \
		"$(q "$R" sum temporary temp_block)"
	expect_eq "ring $ring: summary: unmatched frees" 0 "$(q "$R" summary unmatched_frees)"
	expect_eq "ring $ring: summary: chunks lost" 0 "$(q "$R" summary quality.chunks_lost)"
done
finish
