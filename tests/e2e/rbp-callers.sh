#!/bin/bash
# rbp-callers.sh - malloc, calloc and realloc called straight from functions whose CFA is
# rbp-based (a variable-length array; alloca, with two stacks that differ
# only in that caller's rbp at the same call site and stack position): the
# call-site cache finds their stacks again (the exported malloc, calloc and
# realloc read the caller's rbp), and they are exact: under MPROF_UNWIND=check no capture
# differs from libunwind's and no reused stack from a full walk, and the
# sites have their exact counts.  Program and facts: tests/progs/rbp_callers.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
SRC="$PROGS_DIR/rbp_callers.c"
build_c "$WORK/rbp_callers" "$SRC"
source_line "$SRC" "/* VLA_ALLOC_LINE */"
VLA_LINE=$SOURCE_LINE

MPROF_UNWIND=check mprof_run 120 "$WORK/trace" -- "$WORK/rbp_callers"
expect_eq "exit status (2: the program found no alloca size to calibrate)" 0 "$RUN_STATUS"
expect_eq "stdout" "rbp callers: done" "$(cat "$RUN_OUT")"
expect_exact_unwind
# Before the exported malloc, calloc and realloc read their caller's rbp,
# none of these stacks could be cached: every call was a capture.
expect_range "stacks from the call-site cache" 49000 52001 "$CHECK_SITE_HITS"

report_json "$WORK/r.json" "$WORK/trace"
R="$WORK/r.json"
expect_site "$R" vla_alloc 30000 1200000 10 400
expect_eq "vla_alloc frame: line" "$VLA_LINE" "$(q "$R" frame vla_alloc line)"
expect_site "$R" vla_zeroed 10000 400000 0 0
expect_site "$R" vla_grow 10000 240000 0 0
# The two stacks only with_alloca's rbp tells apart (see the program).
expect_site "$R" "with_alloca&from_deep" 1000 24000 0 0
expect_site "$R" "with_alloca&from_shallow" 1000 24000 0 0
expect_eq "summary: unmatched frees" 0 "$(q "$R" summary unmatched_frees)"
finish
