#!/bin/bash
# Hard case 16: leaving through _exit() or abort(), right after the last
# heap calls, loses no event: the last allocations and frees are in the
# trace, and there is no false leak.
# Program and facts: tests/progs/cases/16-exit-without-atexit.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
case_start 16-exit-without-atexit

build_c "$CASE_DIR/prog" "$CASE_SRC/16-exit-without-atexit.c"
for mode in _exit abort; do
	echo "--- leaving via $mode"
	RUN_NAME="run-$mode" mprof_run "$HANG_LIMIT" "$WORK/trace-$mode" -- "$CASE_DIR/prog" "$mode"
	if [ $mode = abort ]; then
		expect_eq "1. abort: exit status of mprof run (128 + SIGABRT)" 134 "$RUN_STATUS"
		expect_match "1. abort: mprof says SIGABRT" \
			"^mprof: .* was killed by signal 6 \(SIGABRT\)" "$(cat "$RUN_ERR")"
		expect_eq "1. abort: stdout" "last heap call done, abort()" "$(cat "$RUN_OUT")"
	else
		expect_eq "1. _exit: exit status" 3 "$RUN_STATUS"
		expect_no_match "1. _exit: mprof names no signal" "killed by signal" "$(cat "$RUN_ERR")"
		expect_eq "1. _exit: stdout" "last heap call done, _exit(3)" "$(cat "$RUN_OUT")"
	fi
	report_json "$WORK/r-$mode.json" "$WORK/trace-$mode" || continue
	R="$WORK/r-$mode.json"
	if [ $mode = abort ]; then
		expect_eq "1. abort: summary: ended by signal" 6 "$(q "$R" summary program.exit_signal)"
	else
		expect_eq "1. _exit: summary: exit status" 3 "$(q "$R" summary program.exit_status)"
	fi
	# 2. Every event up to the last free (warm_up bytes:
	#    10000 * 40 + 100 * (0 + 1 + ... + 99)).
	#                 FUNCS       allocs bytes  leak-blocks leak-bytes
	expect_site "$R" warm_up     10000  895000 0 0
	expect_site "$R" final_burst 100    77700  0 0
	expect_eq "2. $mode: final_burst: blocks freed" 100 "$(q "$R" sum freed final_burst)"
	expect_eq "2. $mode: summary: unmatched frees" 0 "$(q "$R" summary unmatched_frees)"
	expect_eq "2. $mode: summary: missing events" 0 "$(q "$R" summary quality.missing_events)"
	# 3.
	expect_site "$R" keep_four   4      16000  4 16000
done
finish
