#!/bin/bash
# Shared case 06: the program closes (or redirects to /dev/null) every
# descriptor above stderr and then opens its own files: mprof never touches
# them and keeps recording.
. "$abs_top_srcdir/tests/e2e/lib.sh"
case_setup 06-close-all-fds

for mode in close dup2; do
	run_cmd 30 "native-$mode" ./prog "$mode" "$WORK/native-$mode.bin"
	expect_match "native $mode run: data file intact" "^data file intact" "$(cat "$RUN_OUT")"
	native_fd=$(sed -n 's/.*data fd \([0-9]*\))$/\1/p' "$RUN_OUT")
	RUN_NAME="mprof-$mode" mprof_run 30 "$WORK/trace-$mode" -- ./prog "$mode" "$WORK/case06-$mode.bin"
	expect_eq "1. $mode: exit status" 0 "$RUN_STATUS"
	expect_eq "1. $mode: stdout (same data fd as natively)" \
		"data file intact (262144 bytes, data fd $native_fd)" "$(cat "$RUN_OUT")"
	report_json "$WORK/r-$mode.json" "$WORK/trace-$mode" || continue
	R="$WORK/r-$mode.json"
	expect_site "$R" after_close_churn 1024 - 0 0
	expect_site "$R" after_close_leak - - 10 55550
	expect_site "$R" before_close_leak - - 3 9999
done
finish
