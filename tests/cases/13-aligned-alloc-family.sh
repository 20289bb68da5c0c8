#!/bin/bash
# Hard case 13: memalign, aligned_alloc, posix_memalign, valloc and
# pvalloc are each recorded once per call with the requested size, failed
# calls record nothing, alignment and malloc_usable_size are unaffected.
# Program and facts: tests/progs/cases/13-aligned-alloc-family.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
case_start 13-aligned-alloc-family

build_c "$CASE_DIR/prog" "$CASE_SRC/13-aligned-alloc-family.c"
mprof_run "$HANG_LIMIT" "$WORK/trace" -- "$CASE_DIR/prog"
expect_eq "1. exit status" 0 "$RUN_STATUS"
expect_eq "1. stdout (alignment and usable sizes as the C library promises)" \
	"aligned blocks kept: 20, problems: 0" "$(cat "$RUN_OUT")"
report_json "$WORK/r.json" "$WORK/trace"
R="$WORK/r.json"

# 2. Live at exit, per entry point.
#                   FUNCS              allocs bytes leak-blocks leak-bytes
expect_site "$R" keep_memalign       4 10000 4 10000
expect_site "$R" keep_aligned_alloc  3 9216  3 9216
expect_site "$R" keep_posix_memalign 6 10800 6 10800
expect_site "$R" keep_valloc         2 18000 2 18000
# pvalloc with its requested size (mprof-report(1)), not 5 x 4096 = 20480
expect_site "$R" keep_pvalloc        5 15000 5 15000

# 3. No double counting.
total=0
for f in keep_memalign keep_aligned_alloc keep_posix_memalign keep_valloc keep_pvalloc; do
	total=$((total + $(q "$R" sum allocations $f)))
done
expect_eq "3. allocations of the five keep_* functions together" 20 "$total"
# churn bytes: sum(40 + r) + 80 * 96 + sum(500 - r) + 80 * 64 + sum(128 + r),
# r = 0..79: 6360 + 7680 + 36840 + 5120 + 13400
expect_site "$R" churn_all 400 69400 0 0
expect_eq "3. churn_all: blocks freed" 400 "$(q "$R" sum freed churn_all)"
for pair in memalign=84 aligned_alloc=83 posix_memalign=86 valloc=82 pvalloc=85; do
	fn=${pair%=*}
	expect_eq "3. summary: calls of $fn (each call once, failed ones not)" \
		"${pair#*=}" "$(q "$R" summary "calls.$fn")"
done
expect_eq "3. summary: unmatched frees" 0 "$(q "$R" summary unmatched_frees)"

# 4. Failed calls create no block.
expect_eq "4. fail_each: no site (its 7 failed calls create no block)" 0 "$(q "$R" sites fail_each)"
finish
