#!/bin/bash
# wording-reallocs.sh - the exact report's "frees:" line names what each of
# its counts counts, so that it cannot read as a contradiction of "calls:".
# It read "frees: 2; reallocs 3" beside "calls: realloc 3, reallocarray 2":
# reallocs counts reallocs of a live block, while the calls line counts
# realloc(NULL, n) under realloc too and realloc(p, 0) as realloc_to_zero.
# Now: "frees: 2 (1 of them realloc(p, 0)); reallocs of a live block 3
# (plus 2 realloc(NULL, n): counted as allocations)".  The counts of every
# kind of realloc call are checked too.  Program and facts:
# tests/progs/wording_reallocs.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/wording_reallocs" "$PROGS_DIR/wording_reallocs.c"

mprof_run 60 "$WORK/t.trace" -- "$WORK/wording_reallocs"
expect_eq "exit status" 0 "$RUN_STATUS"
expect_eq "stdout: one realloc stayed, one moved, one failed" "stayed 1 moved 1 failed 1" \
	"$(cat "$RUN_OUT")"
run_cmd 60 text "$MPROF" report -n 0 "$WORK/t.trace"
expect_eq "allocations: realloc(NULL, n) twice, three reallocs of a block" \
	"allocations:      5, 100450 B (98.1 KiB) requested" "$(grep '^allocations:' "$RUN_OUT")"
expect_eq "frees: realloc(p, 0) named, reallocs of a live block apart from realloc(NULL, n)" \
	"frees:            2 (1 of them realloc(p, 0)); reallocs of a live block 3 (plus 2 realloc(NULL, n): counted as allocations); temporary 4 (80.0% of allocations)" \
	"$(grep '^frees:' "$RUN_OUT")"
expect_eq "calls: realloc and reallocarray that allocated, realloc(p, 0), the failed one" \
	"calls:            realloc 3, reallocarray 2, free 1, realloc_to_zero 1, failed realloc 1" \
	"$(grep '^calls:' "$RUN_OUT")"
expect_match "heap peak: the moved block alone" '^heap peak: +100000 B \(97.7 KiB\) in 1 block,' \
	"$(cat "$RUN_OUT")"
if report_json "$WORK/t.json" "$WORK/t.trace"; then
	expect_eq "json: allocations bytes frees blocks_freed reallocs failed temporary" \
		"5 100450 2 5 3 1 4" \
		"$(json_eval "$WORK/t.json" '" ".join(str(d["summary"][k]) for k in ("allocations", "allocated_bytes", "frees", "blocks_freed", "reallocs", "failed_reallocs", "temporary"))')"
	expect_eq "json: calls realloc reallocarray free realloc_to_zero" "3 2 1 1" \
		"$(json_eval "$WORK/t.json" '" ".join(str(d["summary"]["calls"][k]) for k in ("realloc", "reallocarray", "free", "realloc_to_zero"))')"
fi
finish
