#!/bin/bash
# toggle-times.sh - a toggle sent to an idle program is timed when it was
# sent, not when the program's next allocator call applied it.  Before, an
# nginx worker stopped at 2.4 s that then sat idle for 10 minutes reported
# "recorded 602 s of 603 s", and a start sent to an idle server seemed to
# begin at the first request.
# The program sets a marker, writes its pid, and is idle until the test,
# once the signal's handler ran, tells it to go on; it then idles IDLE_MS
# more before it allocates.  So each CONTROL record's time must lie between
# the marker and go_ns after it (the program's own clock, the same as the
# trace's), and the stretch after go_ns is on the far side of the toggle:
# - stop: an exact run (--toggle-signal USR2) stopped once;
# - start: a --paused run started once;
# - stop and start: both sent while idle, a stop and a start each at the
#   time it was sent (before, the two cancelled out and left no record).
# Program and facts: tests/progs/toggle_times.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/tt" "$PROGS_DIR/toggle_times.c" -I"$abs_top_srcdir/include"
IDLE_MS=3000

# toggle_run NAME COUNT MPROF_OPTIONS...: runs toggle_times under `mprof run
# MPROF_OPTIONS`, sends SIGUSR2 COUNT times while it is idle (each once the
# previous one was taken), then lets it go on.  Checks its exit; sets GO_NS
# (from its output) and READY_NS (the marker's time in the report); the
# report is in $WORK/NAME.json.
toggle_run() {
	local name=$1 count=$2 mpid pid
	shift 2
	local T=$WORK/$name
	timeout -k 5 120 "$MPROF" run -o "$T" "$@" -- "$WORK/tt" "$T" "$IDLE_MS" \
		>"$T.out" 2>"$T.err" &
	mpid=$!
	if wait_for_file "$T.pid" "$mpid"; then
		pid=$(cat "$T.pid")
		for _ in $(seq "$count"); do
			kill -s USR2 "$pid"
			wait_taken "$pid"
		done
		: >"$T.go"
	fi
	wait "$mpid"
	expect_eq "$name: exit status" 0 "$?"
	expect_match "$name: stdout" '^toggle_times go_ns=[0-9]+$' "$(cat "$T.out")"
	GO_NS=$(sed -n 's/^toggle_times go_ns=//p' "$T.out")
	report_json "$T.json" "$T" || return 1
	READY_NS=$(q "$T.json" get timeline.markers.0.time_ns)
	expect_match "$name: the marker ready has a time" '^[0-9]+$' "$READY_NS"
	[[ "$READY_NS" =~ ^[0-9]+$ && "$GO_NS" =~ ^[0-9]+$ ]]
}

# expect_change_asked NAME INDEX STATE: change INDEX of NAME's report is
# STATE, timed between the marker and GO_NS after it.
expect_change_asked() {
	local R=$WORK/$1.json at
	expect_eq "$1: change $2" "$3" "$(q "$R" get "summary.recording.changes.$2.state")"
	at=$(q "$R" get "summary.recording.changes.$2.time_ns")
	[[ "$at" =~ ^[0-9]+$ ]] && at=$((at - READY_NS))
	expect_range "$1: change $2 ($3) at (ns after the marker) when sent" 0 "$GO_NS" "$at"
}

IDLE_NS=$((IDLE_MS * 1000000))

if toggle_run stop 1 --toggle-signal USR2; then
	R=$WORK/stop.json
	expect_site "$R" before_idle 30 900 0 0
	expect_no_site "$R" after_idle
	expect_eq "stop: stops" 1 "$(q "$R" get summary.recording.stops)"
	expect_eq "stop: starts" 0 "$(q "$R" get summary.recording.starts)"
	expect_change_asked stop 0 stopped
	# recorded up to the signal: before go_ns; the idle time after is paused
	expect_range "stop: recorded_ns up to the signal" 0 "$((READY_NS + GO_NS))" \
		"$(q "$R" get summary.recording.recorded_ns)"
	expect_range "stop: paused_ns holds the idle time" "$IDLE_NS" 999999999999 \
		"$(q "$R" get summary.recording.paused_ns)"
fi

if toggle_run start 1 --paused; then
	R=$WORK/start.json
	expect_no_site "$R" before_idle
	expect_site "$R" after_idle 50 2500 0 0
	expect_eq "start: stops" 0 "$(q "$R" get summary.recording.stops)"
	expect_eq "start: starts" 1 "$(q "$R" get summary.recording.starts)"
	expect_change_asked start 0 started
	expect_range "start: recorded_ns holds the idle time" "$IDLE_NS" 999999999999 \
		"$(q "$R" get summary.recording.recorded_ns)"
	expect_range "start: paused_ns up to the signal" 0 "$((READY_NS + GO_NS))" \
		"$(q "$R" get summary.recording.paused_ns)"
fi

if toggle_run stop-start 2 --toggle-signal USR2; then
	R=$WORK/stop-start.json
	expect_site "$R" before_idle 30 900 0 0
	expect_site "$R" after_idle 50 2500 0 0
	expect_eq "stop-start: stops" 1 "$(q "$R" get summary.recording.stops)"
	expect_eq "stop-start: starts" 1 "$(q "$R" get summary.recording.starts)"
	expect_change_asked stop-start 0 stopped
	expect_change_asked stop-start 1 started
	expect_range "stop-start: paused_ns between the two signals" 0 "$GO_NS" \
		"$(q "$R" get summary.recording.paused_ns)"
fi
finish
