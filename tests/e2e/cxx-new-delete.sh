#!/bin/bash
# cxx-new-delete.sh - C++ new/delete in every form (plain, array, sized
# delete, aligned new, nothrow new) is recorded with exact counts and sizes,
# attributed to the function that used new, and no site shows a frame of the
# allocator wrapper ("operator new...").
# Program and facts: tests/progs/cxx_new_delete.cpp.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_cxx "$WORK/cxx_new_delete" "$PROGS_DIR/cxx_new_delete.cpp"

mprof_run 60 "$WORK/trace" -- "$WORK/cxx_new_delete"
expect_eq "exit status" 0 "$RUN_STATUS"
expect_eq "stdout" "cxx forms done" "$(cat "$RUN_OUT")"
report_json "$WORK/r.json" "$WORK/trace"
R="$WORK/r.json"

#                           allocs bytes leak-blocks leak-bytes
expect_site "$R" use_new          5 200 2 80
expect_site "$R" use_new_array    3 300 1 100
expect_site "$R" use_sized_delete 4 288 0 0
expect_site "$R" use_aligned_new  3 576 1 192
expect_site "$R" use_nothrow_new  2 666 2 666

# The innermost frame of each site is the user's function: allocator
# wrappers are not shown.
expect_eq "sites with an 'operator new' frame" 0 "$(q "$R" sites-re '^operator new')"
expect_eq "sites with an 'operator delete' frame" 0 "$(q "$R" sites-re '^operator delete')"
for f in use_new use_new_array use_aligned_new use_nothrow_new; do
	expect_eq "$f is called from main" main "$(q "$R" caller "$f")"
done
expect_eq "summary: unmatched frees" 0 "$(q "$R" summary unmatched_frees)"
finish
