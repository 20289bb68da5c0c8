#!/bin/bash
# Hard case 19: 3000 short-lived threads (at most 200 alive at once): no
# per-thread limit, no event of an exiting thread lost, no memory growth
# per thread ever created.
# Program and facts: tests/progs/cases/19-thousands-of-threads.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
case_start 19-thousands-of-threads

build_c "$CASE_DIR/prog" "$CASE_SRC/19-thousands-of-threads.c" -pthread
RUN_RSS=1 mprof_run "$HANG_LIMIT" "$WORK/trace" -- "$CASE_DIR/prog"
expect_eq "1. exit status (no hang; in $RUN_MS ms)" 0 "$RUN_STATUS"
expect_eq "1. stdout" "threads run: 3000, blocks left: 3000" "$(cat "$RUN_OUT")"
report_json "$WORK/r.json" "$WORK/trace"
R="$WORK/r.json"
#                   FUNCS           allocs bytes  leak-blocks leak-bytes
# 2. each thread's last heap call, made just before it exits
expect_site "$R" left_behind    3000   192000 3000 192000
# 3. 3000 * (48 + 80) bytes
expect_site "$R" worker_scratch 6000   384000 0    0
expect_eq "3. worker_scratch: blocks freed" 6000 "$(q "$R" sum freed worker_scratch)"
expect_eq "2. summary: missing events" 0 "$(q "$R" summary quality.missing_events)"
expect_eq "2. summary: unmatched frees" 0 "$(q "$R" summary unmatched_frees)"
# 4. mprof and the program together, in KiB
expect_range "4. peak RSS of the profiled run, KiB (< 200 MB)" 1 204799 "$(cat "$RUN_RSS_FILE" 2>/dev/null)"
finish
