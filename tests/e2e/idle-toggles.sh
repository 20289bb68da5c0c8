#!/bin/bash
# idle-toggles.sh - toggle signals sent to a program that makes no allocator
# call between them (a server idle between requests) each count: a start
# and a stop leave recording as it was, three toggles start it.  Before,
# the toggles asked before the next allocator call counted once, so a user
# who started and stopped recording on an idle server found it recording
# everything after (and an exact run stopped for good by a stop and a
# start).
# - --paused, SIGUSR2 sent 2, 3 and 4 times, each once the previous one was
#   taken (standard signals still pending merge in the kernel);
# - --toggle-signal RTMIN+3 sent twice at once (real-time signals queue);
# - SIGUSR2 sent twice to mprof, which passes each on;
# - an exact run (not paused) stopped and started again.
# Program and facts: tests/progs/idle_toggles.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/idle" "$PROGS_DIR/idle_toggles.c"

# toggle_idle NAME COUNT SIGNAL WAIT MPROF_OPTIONS...: runs idle_toggles
# under `mprof run MPROF_OPTIONS`, sends SIGNAL COUNT times to the program
# (to mprof when WAIT is "launcher"), each once the previous one was taken
# (when WAIT is "taken" or "launcher"; "none": all at once), then lets it
# allocate.  Checks its exit and output; the report is in $WORK/NAME.json.
toggle_idle() {
	local name=$1 count=$2 sig=$3 wait=$4 mpid pid target k
	shift 4
	local T=$WORK/$name
	timeout -k 5 120 "$MPROF" run -o "$T" "$@" -- "$WORK/idle" "$T" >"$T.out" 2>"$T.err" &
	mpid=$!
	if wait_for_file "$T.pid" "$mpid"; then
		pid=$(cat "$T.pid")
		target=$pid
		# mprof itself: the program's parent ($mpid is timeout's pid)
		[ "$wait" = launcher ] &&
			target=$(sed -n 's/^PPid:[[:space:]]*//p' "/proc/$pid/status")
		for k in $(seq "$count"); do
			kill -s "$sig" "$target"
			[ "$wait" = none ] || wait_taken "$pid"
		done
		wait_taken "$pid"
		: >"$T.go"
	fi
	wait "$mpid"
	expect_eq "$name: exit status" 0 "$?"
	expect_eq "$name: stdout" "idle_toggles done" "$(cat "$T.out")"
	report_json "$T.json" "$T"
}

for n in 2 4; do
	toggle_idle "usr2-$n" "$n" USR2 taken --paused &&
		expect_no_site "$WORK/usr2-$n.json" idle_window
done
toggle_idle usr2-3 3 USR2 taken --paused &&
	expect_site "$WORK/usr2-3.json" idle_window 40 1600 0 0
toggle_idle rt-2 2 RTMIN+3 none --paused --toggle-signal RTMIN+3 &&
	expect_no_site "$WORK/rt-2.json" idle_window
toggle_idle launcher-2 2 USR2 launcher --paused &&
	expect_no_site "$WORK/launcher-2.json" idle_window
toggle_idle exact-2 2 USR2 taken --toggle-signal USR2 &&
	expect_site "$WORK/exact-2.json" idle_window 40 1600 0 0
finish
