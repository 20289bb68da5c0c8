#!/bin/bash
# real4-cancelled-calls.sh - threads cancelled asynchronously inside
# malloc while the process goes on (150 rounds of four, each cancelled
# wherever it was) leave calls the recorder took a number for and never
# wrote.  mprof counts them as cut calls, with no sequence gap; its report
# called them "calls cut short by the process's end", though the process
# ran on for seconds after each (a pthread_cancel loop of 80 threads: 68
# to 75 such calls).  Now: "cut short (their thread or process ended
# inside them)".  Program and facts: tests/progs/async_cancel.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/async_cancel" "$PROGS_DIR/async_cancel.c" -pthread

mprof_run 60 "$WORK/t" -- "$WORK/async_cancel"
expect_eq "exit status" 0 "$RUN_STATUS"
expect_eq "stdout" "setcanceltype: 22 0 0 1
cancelled 600" "$(cat "$RUN_OUT")"
if report_json "$WORK/t.json" "$WORK/t"; then
	cut=$(q "$WORK/t.json" summary quality.cut_calls)
	# (68-86 in each of 6 runs: 150 rounds of cancels inside the recorder)
	expect_range "calls cut short" 1 600 "$cut"
	expect_eq "no sequence gap" 0 "$(q "$WORK/t.json" summary quality.sequence_gaps)"
	"$MPROF" report "$WORK/t" >"$WORK/t.txt" 2>&1
	expect_eq "the data line counts them, by their thread's end" 1 \
		"$(grep -c "^data: .*; $cut calls cut short (their thread or process ended inside them)$" \
			"$WORK/t.txt")"
	expect_eq "not by the process's end" 0 "$(grep -c "by the process's end" "$WORK/t.txt")"
fi
finish
