#!/bin/bash
# signal-commands.sh - signals a script sends to the pid it started, which
# is mprof's, reach the program as they would without mprof.  Daemons take
# commands by SIGUSR1, SIGUSR2, SIGWINCH, timers and real-time signals;
# before, mprof passed on only SIGINT, SIGTERM, SIGHUP and SIGQUIT, and
# `kill -USR1` killed the launcher (status 138) and left the program running
# unrecorded.  A sigqueue()'d value arrives with its signal; SIGABRT sent to
# mprof (asking a hung program for a core dump) ends the program by SIGABRT,
# and mprof ends by it too after writing the trace.
# Program and facts: tests/progs/signal_commands.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/signal_commands" "$PROGS_DIR/signal_commands.c"

# wait_line FILE LINE: up to 60 s for FILE to hold LINE (a loaded host took
# 3.7 s for `mprof run true`)
wait_line() {
	for _ in $(seq 1200); do
		grep -qxF "$2" "$1" 2>/dev/null && return 0
		sleep 0.05
	done
	return 1
}

# wait_ready: up to 60 s for the program to have caught its signals
wait_ready() {
	for _ in $(seq 1200); do
		[ -e "$WORK/ready" ] && return 0
		sleep 0.05
	done
	return 1
}

for mode in exact sampled; do
	opts=""
	[ $mode = sampled ] && opts="--sample-rate 1"
	rm -f "$WORK/ready"
	# shellcheck disable=SC2086
	"$MPROF" run -q -o "$WORK/t-$mode" $opts -- "$WORK/signal_commands" "$WORK/ready" \
		>"$WORK/$mode.out" 2>"$WORK/$mode.err" &
	pid=$!
	wait_ready
	kill -USR1 "$pid"
	wait_line "$WORK/$mode.out" "got USR1"
	kill -USR2 "$pid"
	wait_line "$WORK/$mode.out" "got USR2"
	kill -WINCH "$pid"
	wait_line "$WORK/$mode.out" "got WINCH"
	kill -ALRM "$pid"
	wait_line "$WORK/$mode.out" "got ALRM"
	"$WORK/signal_commands" send "$pid" "$(($(kill -l RTMIN) + 1))" 42
	wait "$pid"
	status=$?
	expect_eq "$mode: exit status" 0 "$status"
	expect_eq "$mode: every signal reached the program, the value with it" \
		"got USR1|got USR2|got WINCH|got ALRM|got RTMIN+1 value 42" \
		"$(tr '\n' '|' <"$WORK/$mode.out" | sed 's/|$//')"
	expect_eq "$mode: mprof's messages" "" "$(cat "$WORK/$mode.err")"
	report_json "$WORK/r-$mode.json" "$WORK/t-$mode" || continue
	expect_site "$WORK/r-$mode.json" on_command 5 500 5 500
done

# SIGABRT sent to mprof: the program dies of it, then mprof (its trace done)
rm -f "$WORK/ready"
"$MPROF" run -o "$WORK/t-abrt" -- "$WORK/signal_commands" "$WORK/ready" \
	>"$WORK/abrt.out" 2>"$WORK/abrt.err" &
pid=$!
wait_ready
kill -ABRT "$pid"
wait "$pid"
expect_eq "SIGABRT: mprof ends as the program did (128 + 6)" 134 "$?"
expect_eq "SIGABRT: mprof says so" \
	"mprof: $WORK/signal_commands was killed by signal 6 (SIGABRT)" \
	"$(grep 'killed by' "$WORK/abrt.err")"
run_cmd 60 abrt-report "$MPROF" report -n 0 "$WORK/t-abrt"
expect_match "SIGABRT: the trace is finished" '^program: .* killed by signal 6 \(SIGABRT\)$' \
	"$(grep '^program:' "$RUN_OUT")"
finish
