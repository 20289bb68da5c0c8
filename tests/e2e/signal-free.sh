#!/bin/bash
# signal-free.sh - a signal handler that frees a block while the recorder
# runs on the same thread (it cannot record then): in a sampled run a
# sampled block freed there leaves the set of sampled blocks at once, and is
# counted as a free made but not recorded; before, it stayed in the set, and
# later frees of other blocks at its address were recorded as frees of
# blocks never allocated (some 600 unmatched frees a run).
# Program and facts: tests/progs/signal_free.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/signal_free" "$PROGS_DIR/signal_free.c" -pthread

for r in 1 2 3; do
	RUN_NAME=s$r mprof_run 120 "$WORK/s$r.trace" --sample-rate 64 -- "$WORK/signal_free" 1000000
	expect_eq "sampled $r: exit status" 0 "$RUN_STATUS"
	expect_eq "sampled $r: stdout" ok "$(cat "$RUN_OUT")"
	report_json "$WORK/s$r.json" "$WORK/s$r.trace"
	expect_eq "sampled $r: no unmatched free" 0 "$(q "$WORK/s$r.json" summary unmatched_frees)"
	expect_eq "sampled $r: no sequence gap" 0 "$(q "$WORK/s$r.json" summary quality.sequence_gaps)"
done
RUN_NAME=e mprof_run 120 "$WORK/e.trace" -- "$WORK/signal_free" 1000000
expect_eq "exact: exit status" 0 "$RUN_STATUS"
report_json "$WORK/e.json" "$WORK/e.trace"
expect_eq "exact: no unmatched free" 0 "$(q "$WORK/e.json" summary unmatched_frees)"
finish
