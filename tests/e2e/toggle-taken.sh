#!/bin/bash
# toggle-taken.sh - a program that installs its own handler for the toggle
# signal after the recorder's (Go's runtime and HotSpot's JVM take it as
# they start) takes the signal for a command of its own: mprof says that it
# replaced the handler, keeps the toggle signal sent to mprof from it
# (HotSpot died of one) and says how many it kept; it says nothing when the
# program leaves the signal alone.  Program and facts:
# tests/progs/toggle_taken.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/toggle_taken" "$PROGS_DIR/toggle_taken.c" -pthread

# take NAME MODE: the program creates $WORK/NAME.ready, mprof gets SIGUSR2,
# and the program waits 2 s more once NAME.ready.sent says it was sent (a
# fixed 2 s from ready could end before a loaded host sent it).  In mode
# take-stopped the program has stopped the launcher, which is continued
# only after the signal: it must read the program's process file before
# passing the signal on (6 of 8 runs passed it on before).
take() {
	local name=$1 mode=$2 mprof_pid status _

	"$MPROF" run --paused -o "$WORK/$name.trace" -- "$WORK/toggle_taken" "$mode" \
		"$WORK/$name.ready" >"$WORK/$name.out" 2>"$WORK/$name.err" &
	mprof_pid=$!
	for _ in $(seq 1 600); do [ -e "$WORK/$name.ready" ] && break; sleep 0.1; done
	kill -USR2 "$mprof_pid"
	[ "$mode" = take-stopped ] && kill -CONT "$mprof_pid"
	: >"$WORK/$name.ready.sent"
	wait "$mprof_pid"
	status=$?
	expect_eq "$name: exit status" 0 "$status"
	expect_eq "$name: stdout (the program got no signal from mprof)" \
		"took SIGUSR2: yes, caught 1" "$(cat "$WORK/$name.out")"
	expect_match "$name: mprof says the program took the signal" \
		"^mprof: the program replaced mprof's handler of the toggle signal \(SIGUSR2\) with its own\$" \
		"$(cat "$WORK/$name.err")"
	expect_match "$name: mprof says it kept the signal" \
		"^mprof: warning: the toggle signal sent to mprof was not passed on \(1 time\): .*toggle_taken handles it itself, so it cannot toggle recording\$" \
		"$(cat "$WORK/$name.err")"
	report_json "$WORK/$name.json" "$WORK/$name.trace" || return
	expect_eq "$name: nothing recorded" 0 "$(q "$WORK/$name.json" summary allocations)"
}
take take take
for round in 1 2 3; do
	take "stopped$round" take-stopped
done

RUN_NAME=leave mprof_run 60 "$WORK/leave.trace" --paused -- "$WORK/toggle_taken"
expect_eq "leave: exit status" 0 "$RUN_STATUS"
expect_eq "leave: stdout" "took SIGUSR2: no, caught 0" "$(cat "$RUN_OUT")"
expect_no_match "leave: no word of the toggle signal" 'toggle signal' "$(cat "$RUN_ERR")"
report_json "$WORK/leave.json" "$WORK/leave.trace" || finish
expect_site "$WORK/leave.json" after_toggle 1 64 0 0
finish
