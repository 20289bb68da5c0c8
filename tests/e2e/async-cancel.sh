#!/bin/bash
# async-cancel.sh - a thread cancelled inside the recorder never leaves one
# of its locks held: threads cancelable asynchronously were cancelled while
# they allocated, one of them holding a lock of the recorder's (the
# thread-state pool's, seen), and the other threads waited for it forever:
# both runs hung.  The recorder's wrapper of pthread_setcanceltype returns
# what the C library does.  Exact and sampled runs (the sampled one also takes a lock
# of the set of sampled blocks at each sample).
# Program and facts: tests/progs/async_cancel.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/async_cancel" "$PROGS_DIR/async_cancel.c" -pthread

run_cmd 60 native "$WORK/async_cancel"
want="setcanceltype: 22 0 0 1
cancelled 600"
expect_eq "native: stdout" "$want" "$(cat "$RUN_OUT")"
for mode in exact sampled; do
	opts=
	[ "$mode" = sampled ] && opts="--sample-rate 64 --sample-seed 7"
	# shellcheck disable=SC2086 # opts: several words or none
	RUN_NAME="mprof-$mode" mprof_run 60 "$WORK/trace-$mode" $opts -- "$WORK/async_cancel"
	expect_eq "$mode: exit status (124: the run hung)" 0 "$RUN_STATUS"
	expect_eq "$mode: stdout (pthread_setcanceltype's results too)" "$want" "$(cat "$RUN_OUT")"
	report_json "$WORK/r-$mode.json" "$WORK/trace-$mode" || continue
	if [ "$mode" = exact ]; then
		expect_site "$WORK/r-$mode.json" main_churn 15000 1500000 0 0
		expect_eq "$mode: unmatched frees" 0 "$(q "$WORK/r-$mode.json" summary unmatched_frees)"
	fi
done
finish
