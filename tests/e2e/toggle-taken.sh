#!/bin/bash
# toggle-taken.sh - a program that installs its own handler for the toggle
# signal after the recorder's (Go's runtime takes every signal at its start)
# no longer toggles recording; mprof says so (toggles sent to a Go program
# did nothing, with no word of why), and says nothing when the program
# leaves the signal alone.  Program and facts: tests/progs/toggle_taken.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/toggle_taken" "$PROGS_DIR/toggle_taken.c" -pthread
SAID="^mprof: the program replaced mprof's handler of the toggle signal \(SIGUSR2\) with its own: the signal toggles recording no more, unless that handler passes it on\$"

RUN_NAME=take mprof_run 60 "$WORK/take.trace" --paused -- "$WORK/toggle_taken" take
expect_eq "take: exit status" 0 "$RUN_STATUS"
expect_eq "take: stdout" "took SIGUSR2: yes, caught 1" "$(cat "$RUN_OUT")"
expect_match "take: mprof says the program took the signal" "$SAID" "$(cat "$RUN_ERR")"
report_json "$WORK/take.json" "$WORK/take.trace" || finish
expect_eq "take: nothing recorded" 0 "$(q "$WORK/take.json" summary allocations)"

RUN_NAME=leave mprof_run 60 "$WORK/leave.trace" --paused -- "$WORK/toggle_taken"
expect_eq "leave: exit status" 0 "$RUN_STATUS"
expect_eq "leave: stdout" "took SIGUSR2: no, caught 0" "$(cat "$RUN_OUT")"
expect_no_match "leave: no word of the signal taken" 'toggle signal' "$(cat "$RUN_ERR")"
report_json "$WORK/leave.json" "$WORK/leave.trace" || finish
expect_site "$WORK/leave.json" after_toggle 1 64 0 0
finish
