#!/bin/bash
# Shared case 15: the program SIGKILLs itself: mprof returns 137 (or says
# "killed by signal 9"), and the trace holds everything committed before.
. "$abs_top_srcdir/tests/e2e/lib.sh"
case_setup 15-sigkill-midrun

mprof_run 30 "$WORK/trace" -- ./prog
if [ "$RUN_STATUS" -ne 137 ]; then
	expect_match "1. killed by SIGKILL: status 137 or an explicit message" \
		"^mprof: .*(killed by signal 9|SIGKILL)" "$(cat "$RUN_ERR")"
else
	expect_eq "1. killed by SIGKILL: exit status" 137 "$RUN_STATUS"
fi
expect_eq "1. stdout" "allocated 20000 blocks, now sending SIGKILL to myself" "$(cat "$RUN_OUT")"
expect_eq "2. the trace file exists" yes "$([ -s "$WORK/trace" ] && echo yes || echo no)"
report_json "$WORK/r.json" "$WORK/trace"
R="$WORK/r.json"
# EXPECT.md allows >= 1000; DESIGN.md promises that nothing committed is lost.
expect_site "$R" before_kill 20000 2000000 20000 2000000
expect_eq "3. before_kill: every block is 100 bytes" 100 "$(q "$R" sizes before_kill)"
expect_no_site "$R" after_kill
# 4. No invented allocation: the churn is exact, and no site is larger than
#    the program's largest real request.
expect_site "$R" churn_before_kill 50000 3174616 0 0
expect_range "4. largest site in bytes (no garbage sizes)" 0 3174616 "$(q "$R" max allocated_bytes)"
finish
