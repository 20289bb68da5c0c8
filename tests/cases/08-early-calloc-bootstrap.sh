#!/bin/bash
# Shared case 08: an allocation storm from several threads in a library
# constructor, before main() and maybe before the profiler is ready; calloc
# memory stays zeroed; nothing is lost or mis-counted.
. "$abs_top_srcdir/tests/e2e/lib.sh"
case_setup 08-early-calloc-bootstrap

mprof_run 10 "$WORK/trace" -- ./prog
expect_eq "1. exit status (no crash, no hang within 10 s)" 0 "$RUN_STATUS"
expect_eq "1. stdout" "early init: not-zeroed calloc blocks 0, dlsym failures 50/50" "$(cat "$RUN_OUT")"
report_json "$WORK/r.json" "$WORK/trace"
R="$WORK/r.json"
expect_site "$R" early_calloc 10 40960 10 40960
expect_site "$R" early_thread_alloc 4000 626864 0 0
expect_eq "summary: unmatched frees" 0 "$(q "$R" summary unmatched_frees)"
finish
