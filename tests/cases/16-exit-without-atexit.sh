#!/bin/bash
# Shared case 16: leaving through _exit() or abort() loses no event: the last
# allocations and frees are in the trace, no false leak.
. "$abs_top_srcdir/tests/e2e/lib.sh"
case_setup 16-exit-without-atexit

for mode in _exit abort; do
	if [ $mode = abort ]; then
		want_status=134 want_out="leaving via abort()"
	else
		want_status=3 want_out="leaving via _exit(3)"
	fi
	RUN_NAME="run-$mode" mprof_run 30 "$WORK/trace-$mode" -- ./prog "$mode"
	if [ $mode = abort ] && [ "$RUN_STATUS" -ne 134 ]; then
		expect_match "1. $mode: death by SIGABRT reported" "^mprof: .*(signal 6|SIGABRT)" "$(cat "$RUN_ERR")"
	else
		expect_eq "1. $mode: exit status" "$want_status" "$RUN_STATUS"
	fi
	expect_eq "1. $mode: stdout" "$want_out" "$(cat "$RUN_OUT")"
	report_json "$WORK/r-$mode.json" "$WORK/trace-$mode" || continue
	R="$WORK/r-$mode.json"
	expect_site "$R" last_moment_churn 100 77700 0 0
	expect_site "$R" churn 10000 - 0 0
	expect_site "$R" live_at_exit 4 16000 4 16000
done
finish
