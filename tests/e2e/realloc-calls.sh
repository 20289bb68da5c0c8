#!/bin/bash
# realloc-calls.sh - a sampled report's estimate beside "free calls" counts
# every realloc call, realloc(NULL, n) included (a sampled trace cannot
# tell a realloc of a block that was not sampled from realloc(NULL, n)),
# while an exact report's "reallocs" counts reallocs of a block.  It read
# "N reallocs": Lua, which allocates everything through realloc(NULL, n),
# got "143304 reallocs" sampled and "reallocs 120" exact.  Now the sampled
# line says "realloc calls", and the exact one "reallocs of a live block"
# with the realloc(NULL, n) calls beside them (tests/e2e/wording-reallocs.sh).  Sample rate 1 byte picks every call, so the
# estimates are exact.  Program and facts: tests/progs/realloc_calls.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/realloc_calls" "$PROGS_DIR/realloc_calls.c"

RUN_NAME=exact mprof_run 60 "$WORK/exact.trace" -- "$WORK/realloc_calls"
expect_eq "exact: exit status" 0 "$RUN_STATUS"
run_cmd 60 exact-text "$MPROF" report -n 0 "$WORK/exact.trace"
expect_eq "exact: frees and reallocs of a block" \
	"frees:            51; reallocs of a live block 3 (plus 50 realloc(NULL, n): counted as allocations); temporary 54 (100.0% of allocations)" \
	"$(grep '^frees:' "$RUN_OUT")"
expect_eq "exact: calls" "calls:            malloc 1, realloc 53, free 51" \
	"$(grep '^calls:' "$RUN_OUT")"

RUN_NAME=sampled mprof_run 60 "$WORK/sampled.trace" --sample-rate 1 --sample-seed 7 -- \
	"$WORK/realloc_calls"
expect_eq "sampled: exit status" 0 "$RUN_STATUS"
run_cmd 60 sampled-text "$MPROF" report -n 0 "$WORK/sampled.trace"
expect_eq "sampled: realloc calls estimated, reallocs of a block recorded" \
	"frees:            54 blocks freed, 51 free calls, 53 realloc calls (estimates, realloc(NULL, n) included; 51 free calls and 3 reallocs of a recorded block recorded); temporary not estimated (sampled)" \
	"$(grep '^frees:' "$RUN_OUT")"
if report_json "$WORK/sampled.json" "$WORK/sampled.trace"; then
	expect_eq "sampled json: reallocs (the calls' estimate), reallocs_recorded, calls.realloc" \
		"53 3 53" \
		"$(json_eval "$WORK/sampled.json" '"%d %d %d" % (d["summary"]["reallocs"], d["summary"]["reallocs_recorded"], d["summary"]["calls"]["realloc"])')"
fi
finish
