#!/bin/bash
# Hard case 14: realloc(p, 0) frees, realloc(NULL, n) allocates, a failed
# realloc (or reallocarray) changes nothing, reallocarray is its own entry
# point.
# Program and facts: tests/progs/cases/14-realloc-edge-cases.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
case_start 14-realloc-edge-cases

build_c "$CASE_DIR/prog" "$CASE_SRC/14-realloc-edge-cases.c"
mprof_run "$HANG_LIMIT" "$WORK/trace" -- "$CASE_DIR/prog"
expect_eq "1. exit status" 0 "$RUN_STATUS"
expect_eq "1. stdout" "blocks kept: 7, problems: 0" "$(cat "$RUN_OUT")"
report_json "$WORK/r.json" "$WORK/trace"
R="$WORK/r.json"

# Facts 2-4 (live at exit), with the counting rules of mprof-report(1):
# each successful call counts one allocation of its new size, failed calls
# and realloc(p, 0) count none.
#                   FUNCS            allocs bytes   leak-blocks leak-bytes
# 2.
expect_site "$R" from_null       4     1200    4 1200
expect_site "$R" resize_steps    5     205094  1 30
expect_site "$R" realloc_too_big 1     333     1 333
expect_site "$R" array_resize    2     700     1 400
total_blocks=0 total_bytes=0
for f in from_null resize_steps realloc_too_big array_resize; do
	total_blocks=$((total_blocks + $(q "$R" sum leaked_blocks $f)))
	total_bytes=$((total_bytes + $(q "$R" sum leaked_bytes $f)))
done
expect_eq "2. live at exit, the four functions together" "7 / 1963" "$total_blocks / $total_bytes"
# 3.
expect_site "$R" shrink_to_zero  8     960     0 0
expect_eq "3. shrink_to_zero: blocks freed (by realloc(p, 0))" 8 "$(q "$R" sum freed shrink_to_zero)"
# 4. churn bytes: 5000 * 24 + sum(40 + (i & 63), i < 5000) + 5000 * 12
expect_site "$R" array_overflow  1     80      0 0
expect_site "$R" same_size       2     1400    0 0
expect_site "$R" churn           15000 537276  0 0

# Whole process.  A failed call is no free: had the old block been taken
# as freed, array_overflow's free would be unmatched.
expect_eq "summary: unmatched frees" 0 "$(q "$R" summary unmatched_frees)"
expect_eq "summary: calls of realloc_to_zero" 8 "$(q "$R" summary calls.realloc_to_zero)"
# successful calls: from_null 4, resize_steps 4, same_size 1, churn 15000
expect_eq "summary: calls of realloc" 15009 "$(q "$R" summary calls.realloc)"
expect_eq "summary: calls of reallocarray" 2 "$(q "$R" summary calls.reallocarray)"
# realloc_too_big's realloc is a failed realloc; array_overflow's
# reallocarray fails on its n * size overflow before any allocator call and
# is not recorded (mprof-report(1)).
expect_eq "summary: failed reallocs" 1 "$(q "$R" summary failed_reallocs)"
finish
