#!/bin/bash
# Shared case 13: memalign, aligned_alloc, posix_memalign, valloc and
# pvalloc are each recorded once per call with the requested size, failed
# calls record nothing, alignment and malloc_usable_size are unaffected.
. "$abs_top_srcdir/tests/e2e/lib.sh"
case_setup 13-aligned-alloc-family

mprof_run 30 "$WORK/trace" -- ./prog
expect_eq "1. exit status" 0 "$RUN_STATUS"
expect_eq "1. stdout" "aligned blocks kept: 25, problems: 0" "$(cat "$RUN_OUT")"
report_json "$WORK/r.json" "$WORK/trace"
R="$WORK/r.json"
expect_site "$R" leak_memalign 3 9000 3 9000
expect_site "$R" leak_aligned_alloc 4 16384 4 16384
expect_site "$R" leak_posix_memalign 5 25000 5 25000
expect_site "$R" leak_valloc 6 36000 6 36000
# mprof counts pvalloc with its requested size (mprof-report(1))
expect_site "$R" leak_pvalloc 7 49000 7 49000
expect_site "$R" churn_aligned 500 - 0 0
# churn bytes: sum(100 + i) + 100 * 128 + sum(200 + i) + 100 * 300 + 100 * 400
expect_eq "3. churn_aligned: requested bytes" 122700 "$(q "$R" sum allocated_bytes churn_aligned)"
expect_no_site "$R" failing_aligned
finish
