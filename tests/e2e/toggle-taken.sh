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

# take: the program creates $WORK/ready, mprof gets SIGUSR2, and the
# program waits 2 s more once $WORK/ready.sent says it was sent (a fixed
# 2 s from ready could end before a loaded host sent it)
"$MPROF" run --paused -o "$WORK/take.trace" -- "$WORK/toggle_taken" take "$WORK/ready" \
	>"$WORK/take.out" 2>"$WORK/take.err" &
MPROF_PID=$!
for _ in $(seq 1 300); do [ -e "$WORK/ready" ] && break; sleep 0.1; done
kill -USR2 "$MPROF_PID"
: >"$WORK/ready.sent"
wait "$MPROF_PID"
expect_eq "take: exit status" 0 "$?"
expect_eq "take: stdout (the program got no signal from mprof)" \
	"took SIGUSR2: yes, caught 1" "$(cat "$WORK/take.out")"
expect_match "take: mprof says the program took the signal" \
	"^mprof: the program replaced mprof's handler of the toggle signal \(SIGUSR2\) with its own\$" \
	"$(cat "$WORK/take.err")"
expect_match "take: mprof says it kept the signal" \
	"^mprof: warning: the toggle signal sent to mprof was not passed on \(1 time\): .*toggle_taken handles it itself, so it cannot toggle recording\$" \
	"$(cat "$WORK/take.err")"
report_json "$WORK/take.json" "$WORK/take.trace" || finish
expect_eq "take: nothing recorded" 0 "$(q "$WORK/take.json" summary allocations)"

RUN_NAME=leave mprof_run 60 "$WORK/leave.trace" --paused -- "$WORK/toggle_taken"
expect_eq "leave: exit status" 0 "$RUN_STATUS"
expect_eq "leave: stdout" "took SIGUSR2: no, caught 0" "$(cat "$RUN_OUT")"
expect_no_match "leave: no word of the toggle signal" 'toggle signal' "$(cat "$RUN_ERR")"
report_json "$WORK/leave.json" "$WORK/leave.trace" || finish
expect_site "$WORK/leave.json" after_toggle 1 64 0 0
finish
