#!/bin/bash
# toggle-vfork.sh - a vfork child that sets the toggle signal to be ignored
# before it execs changes only its own disposition, not the recorded
# parent's (they share memory, not signal handlers): mprof must not take it
# as the program taking the signal, and passes the toggle signal sent to
# mprof on to the parent, which starts recording.  Program and facts:
# tests/progs/toggle_vfork.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/toggle_vfork" "$PROGS_DIR/toggle_vfork.c" -I"$abs_top_srcdir/include"

"$MPROF" run --paused -o "$WORK/run.trace" -- "$WORK/toggle_vfork" "$WORK/ready" \
	>"$WORK/run.out" 2>"$WORK/run.err" &
mprof_pid=$!
for _ in $(seq 1 600); do [ -e "$WORK/ready" ] && break; sleep 0.1; done
kill -USR2 "$mprof_pid"
: >"$WORK/ready.sent"
wait "$mprof_pid"
expect_eq "exit status" 0 "$?"
expect_eq "stdout (the toggle reached the parent)" \
	"parent's SIGUSR2: default, child 0, recording on: yes" "$(cat "$WORK/run.out")"
expect_no_match "no word of the program setting the toggle signal" \
	'the program (set|replaced).*toggle signal' "$(cat "$WORK/run.err")"
expect_no_match "the toggle signal was passed on" 'was not passed on' "$(cat "$WORK/run.err")"
report_json "$WORK/run.json" "$WORK/run.trace" || finish
expect_site "$WORK/run.json" after_toggle 1 64 0 0
finish
