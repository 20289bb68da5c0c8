#!/bin/bash
# shared-site.sh - two call stacks that share the allocator's caller and
# its stack position, and differ only further up, alternate: the
# recorder's call-site cache keeps both (under MPROF_UNWIND=check nearly
# every capture comes from it, none differing from a full walk), and each
# allocation is counted under its own stack.
# Program and facts: tests/progs/shared_site.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/shared_site" "$PROGS_DIR/shared_site.c"

MPROF_UNWIND=check mprof_run 120 "$WORK/trace" -- "$WORK/shared_site"
expect_eq "exit status" 0 "$RUN_STATUS"
expect_eq "stdout" "shared site: 1000 1000" "$(cat "$RUN_OUT")"
expect_exact_unwind
# 2000 captures from leaf; all but the first of each route are found in the
# cache once it exists (a thread's first 32 captures come before it,
# preload/thread.h).  (A cache holding one stack per site finds none: the
# routes alternate.)
expect_range "stacks from the call-site cache" 1958 2000 "$CHECK_SITE_HITS"

report_json "$WORK/r.json" "$WORK/trace"
R="$WORK/r.json"
expect_site "$R" "leaf&route_a" 1000 100000 0 0
expect_site "$R" "leaf&route_b" 1000 200000 0 0
expect_eq "leaf: sites" 2 "$(q "$R" sites leaf)"
finish
