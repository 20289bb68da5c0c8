#!/bin/bash
# rbp-new.sh - C++ operator new (plain, array, nothrow, aligned) called
# straight from functions whose CFA is rbp-based (alloca), served by an
# allocator linked into the program that defines new itself: the
# recorder's wrappers of new find these stacks in the call-site cache (each
# reads its caller's rbp, as malloc does), and they are exact: under
# MPROF_UNWIND=check no capture differs from libunwind's and no reused
# stack from a full walk, and the sites have their exact counts.
# Programs and facts: tests/progs/rbp_new.cpp, tests/progs/own_new_alloc.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/libown_new.so" "$PROGS_DIR/own_new_alloc.c" -shared -fPIC
build_cxx "$WORK/rbp_new" "$PROGS_DIR/rbp_new.cpp" -L"$WORK" -lown_new -Wl,-rpath,"$WORK"

MPROF_UNWIND=check mprof_run 120 "$WORK/trace" -- "$WORK/rbp_new"
expect_eq "exit status" 0 "$RUN_STATUS"
expect_eq "stdout" "rbp new: done" "$(cat "$RUN_OUT")"
expect_exact_unwind
# Before the wrappers of new read their caller's rbp, none of these stacks
# could be cached: every call was a capture.
expect_range "stacks from the call-site cache" 7900 8001 "$CHECK_SITE_HITS"

report_json "$WORK/r.json" "$WORK/trace"
R="$WORK/r.json"
expect_site "$R" new_array 2000 80000 0 0
expect_site "$R" new_object 2000 48000 0 0
expect_site "$R" new_nothrow 2000 32000 0 0
expect_site "$R" new_aligned 2000 128000 0 0
expect_eq "summary: unmatched frees" 0 "$(q "$R" summary unmatched_frees)"
finish
