#!/bin/bash
# rbp-entry-points.sh - reallocarray, posix_memalign, aligned_alloc,
# memalign, valloc, pvalloc and the C library's __libc_ allocating entry
# points called straight from functions whose CFA is rbp-based (a
# variable-length array): the call-site cache finds their stacks again
# (each reads its caller's rbp, as malloc does), and they are exact: under
# MPROF_UNWIND=check no capture differs from libunwind's and no reused
# stack from a full walk, and the sites have their exact counts.  Program
# and facts: tests/progs/rbp_entry_points.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/rbp_entry_points" "$PROGS_DIR/rbp_entry_points.c" -I"$PROGS_DIR"

MPROF_UNWIND=check mprof_run 120 "$WORK/trace" -- "$WORK/rbp_entry_points"
expect_eq "exit status" 0 "$RUN_STATUS"
expect_eq "stdout" "rbp entry points: done" "$(cat "$RUN_OUT")"
expect_exact_unwind
# Before these entry points read their caller's rbp, none of these stacks
# could be cached: every call was a capture.
expect_range "stacks from the call-site cache" 25000 26001 "$CHECK_SITE_HITS"

report_json "$WORK/r.json" "$WORK/trace"
R="$WORK/r.json"
expect_site "$R" vla_reallocarray 2000 48000 0 0
expect_site "$R" vla_libc_reallocarray 2000 48000 0 0
expect_site "$R" vla_libc_realloc 2000 48000 0 0
for f in vla_posix_memalign vla_aligned_alloc vla_memalign vla_libc_memalign; do
	expect_site "$R" $f 2000 128000 0 0
done
for f in vla_valloc vla_pvalloc vla_libc_valloc vla_libc_pvalloc; do
	expect_site "$R" $f 2000 200000 0 0
done
expect_site "$R" vla_libc_malloc 2000 80000 0 0
expect_site "$R" vla_libc_calloc 2000 80000 0 0
expect_eq "summary: unmatched frees" 0 "$(q "$R" summary unmatched_frees)"
finish
