#!/bin/bash
# cut-calls.sh - a process that ends (another thread's _exit) while a
# thread is inside a realloc, after the recorder took the call's sequence
# number and before it wrote the record: the launcher writes that number
# as a SEQ_SKIP, so the trace has no gap below the exiting thread's later
# allocation, after a CUT_CALLS record that says it is no failed realloc.
# Before, one run in one or two had "1 events missing" (and a
# Go program with cgo, killed by os.Exit while one of its threads was in
# free, once lost one).  Repeated, as the end lands anywhere in the loop;
# the program spends most of its time in the recorder's realloc.
# Programs: tests/progs/cut_calls.c, tests/progs/exit_threads.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/cut_calls" "$PROGS_DIR/cut_calls.c" -pthread

for run in 1 2 3 4 5 6 7 8; do
	RUN_NAME=cut$run mprof_run 60 "$WORK/t$run" "$WORK/cut_calls"
	expect_eq "run $run: exit status" 0 "$RUN_STATUS"
	report_json "$WORK/r$run.json" "$WORK/t$run" || continue
	R="$WORK/r$run.json"
	expect_eq "run $run: trace complete" true "$(q "$R" summary quality.complete)"
	expect_eq "run $run: sequence gaps" 0 "$(q "$R" summary quality.sequence_gaps)"
	expect_eq "run $run: events missing" 0 "$(q "$R" summary quality.missing_events)"
	expect_eq "run $run: late events" 0 "$(q "$R" summary quality.late_events)"
	expect_eq "run $run: nothing lost" null "$(q "$R" summary data_lost)"
	# the cut call is no failed realloc (the launcher says what it is)
	expect_eq "run $run: no failed realloc" 0 "$(q "$R" summary failed_reallocs)"
	cut=$(q "$R" summary quality.cut_calls)
	[ "$cut" -ge 1 ] 2>/dev/null && cut_seen=1
	expect_range "run $run: calls cut short" 0 2 "$cut"
done
expect_eq "a call cut short in some run" 1 "${cut_seen:-0}"

# exit() in one thread while three allocate: the others are killed anywhere,
# often between taking a number and publishing it (the slot's "taking"
# says so, and the launcher's CUT_CALLS counts it): no event is missing,
# no realloc failed, the trace is whole.
build_c "$WORK/exit_threads" "$PROGS_DIR/exit_threads.c" -pthread -O0
for run in 1 2 3 4 5 6 7 8; do
	RUN_NAME=exit$run mprof_run 60 "$WORK/e$run" "$WORK/exit_threads"
	expect_eq "exit run $run: exit status" 7 "$RUN_STATUS"
	report_json "$WORK/e$run.json" "$WORK/e$run" || continue
	R="$WORK/e$run.json"
	expect_eq "exit run $run: events missing" 0 "$(q "$R" summary quality.missing_events)"
	expect_eq "exit run $run: no failed realloc" 0 "$(q "$R" summary failed_reallocs)"
	expect_eq "exit run $run: nothing lost" null "$(q "$R" summary data_lost)"
	expect_range "exit run $run: calls cut short" 0 8 "$(q "$R" summary quality.cut_calls)"
done
finish
