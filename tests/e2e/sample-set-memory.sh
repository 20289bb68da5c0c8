#!/bin/bash
# sample-set-memory.sh - a sampled run's recorder memory follows its live
# samples: at --sample-rate 4K, 4000 live blocks of 1000 B (about 1000 live
# samples) cost at most 512 KiB more recorder memory than the exact run.
# The set of sampled blocks mapped 2^18 chain heads (2 MiB) at its first
# sample, and 1000 live samples touched most of their pages: 2.0 MiB against
# 0.23 MiB exact (session 59, stop 59); its chains now grow with the live
# samples (preload/sample_set.c): 0.31 MiB.  At 64K and 512K the sampled
# run stays within 64 KiB of the exact one.
# Program and facts: tests/progs/sample_margins.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/sample_margins" "$PROGS_DIR/sample_margins.c"

RUN_NAME=exact mprof_run 60 "$WORK/exact" -- "$WORK/sample_margins" 8000 1000
expect_eq "exact: exit status" 0 "$RUN_STATUS"
report_json "$WORK/exact.json" "$WORK/exact"
exact=$(q "$WORK/exact.json" summary profiler.recorder_kib)
for spec in "4K 512" "64K 64" "512K 64"; do
	set -- $spec
	RUN_NAME=r$1 mprof_run 60 "$WORK/r$1" --sample-rate "$1" --sample-seed 1 -- \
		"$WORK/sample_margins" 8000 1000
	expect_eq "$1: exit status" 0 "$RUN_STATUS"
	report_json "$WORK/r$1.json" "$WORK/r$1"
	kib=$(q "$WORK/r$1.json" summary profiler.recorder_kib)
	echo "note: recorder memory at $1: $kib KiB, exact $exact KiB"
	expect_range "$1: recorder KiB at most exact's ($exact) + $2" 0 $((exact + $2)) "$kib"
done
finish
