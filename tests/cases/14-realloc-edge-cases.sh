#!/bin/bash
# Shared case 14: realloc(p, 0) frees, realloc(NULL, n) allocates, a failed
# realloc changes nothing, reallocarray is its own entry point.
. "$abs_top_srcdir/tests/e2e/lib.sh"
case_setup 14-realloc-edge-cases

mprof_run 30 "$WORK/trace" -- ./prog
expect_eq "1. exit status" 0 "$RUN_STATUS"
expect_eq "1. stdout" "blocks kept: 8, problems: 0" "$(cat "$RUN_OUT")"
report_json "$WORK/r.json" "$WORK/trace"
R="$WORK/r.json"
# Facts 2-4 (live at exit), plus the counting rules of mprof-report(1): each
# successful call counts one allocation of its new size, failed calls and
# realloc(p, 0) count none.
#                              allocations bytes leak-blocks leak-bytes
expect_site "$R" realloc_null          5 1250   5 1250
expect_site "$R" grow_shrink           5 101160 1 50
expect_site "$R" failed_realloc        1 200    1 200
expect_site "$R" reallocarray_grow     2 900    1 600
expect_site "$R" zero_realloc          10 1000  0 0
expect_site "$R" reallocarray_overflow 1 64     0 0
expect_site "$R" realloc_same          2 2000   0 0
expect_site "$R" churn_realloc         30000 1194104 0 0
total_blocks=0 total_bytes=0
for f in realloc_null grow_shrink failed_realloc reallocarray_grow; do
	total_blocks=$((total_blocks + $(q "$R" sum leaked_blocks $f)))
	total_bytes=$((total_bytes + $(q "$R" sum leaked_bytes $f)))
done
expect_eq "2. live at exit, four functions together" "8 / 2100" "$total_blocks / $total_bytes"
expect_eq "summary: unmatched frees" 0 "$(q "$R" summary unmatched_frees)"
finish
