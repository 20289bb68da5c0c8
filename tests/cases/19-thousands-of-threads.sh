#!/bin/bash
# Shared case 19: 3000 short-lived threads: no per-thread limit, no event of
# an exiting thread lost, no per-thread memory growth.
. "$abs_top_srcdir/tests/e2e/lib.sh"
case_setup 19-thousands-of-threads

RUN_RSS=1 mprof_run 15 "$WORK/trace" -- ./prog
expect_eq "1. exit status (within 15 s)" 0 "$RUN_STATUS"
expect_eq "1. stdout" "threads: 3000, leaked blocks: 3000" "$(cat "$RUN_OUT")"
expect_range "4. peak RSS of the profiled run, KiB (< 200 MB)" 1 204799 "$(cat "$RUN_RSS_FILE" 2>/dev/null)"
report_json "$WORK/r.json" "$WORK/trace"
R="$WORK/r.json"
expect_site "$R" thread_leak 3000 192000 3000 192000
expect_site "$R" thread_scratch 6000 384000 0 0
finish
