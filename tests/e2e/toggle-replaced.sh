#!/bin/bash
# toggle-replaced.sh - a program that sets its own disposition of the toggle
# signal after the recorder's start and starts no thread (the JVM takes
# SIGUSR2 before its threads) never gets a toggle signal from mprof: a
# toggle sent to mprof is kept from it at once, not only after its next
# thread start.  Each way of installing a handler (sigaction, SA_SIGINFO,
# signal, sigset, bsd_signal, sysv_signal, syscall(SYS_rt_sigaction)) and
# SIG_IGN: the handler never runs, mprof says it kept the signal, the
# toggle sent before still took effect, and the program's old disposition
# reads SIG_DFL as without mprof (also through the raw system call).
# A program that only reads the action and sets SIG_DFL leaves the signal
# to mprof: the toggle then stops recording.  Program and facts:
# tests/progs/toggle_replace.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/replace" "$PROGS_DIR/toggle_replace.c" -I"$abs_top_srcdir/include"

# replace NAME MODE SIG [MPROF_OPTIONS...]: runs toggle_replace MODE under
# `mprof run --paused MPROF_OPTIONS`, sends SIG to the program (recording
# on) before it takes the signal and SIG to mprof after; checks its exit
# and output (old disposition $OLD, caught 0).  The report is in
# $WORK/NAME.json.
replace() {
	local name=$1 mode=$2 sig=$3 mpid pid arg=
	shift 3
	local T=$WORK/$name
	[ "$sig" = RTMIN+3 ] && arg=rt3
	timeout -k 5 150 "$MPROF" run --paused -o "$T.trace" "$@" -- "$WORK/replace" "$mode" \
		"$T" $arg >"$T.out" 2>"$T.err" &
	mpid=$!
	if wait_for_file "$T.pid" "$mpid"; then
		pid=$(cat "$T.pid")
		kill -s "$sig" "$pid"
		wait_taken "$pid"
		: >"$T.go1"
		for _ in $(seq 600); do [ -e "$T.taken" ] && break; sleep 0.1; done
		# mprof itself: the program's parent ($mpid is timeout's pid)
		kill -s "$sig" "$(sed -n 's/^PPid:[[:space:]]*//p' "/proc/$pid/status")"
		: >"$T.go2"
	fi
	wait "$mpid"
	expect_eq "$name: exit status" 0 "$?"
	expect_eq "$name: stdout" "old $OLD, caught 0" "$(cat "$T.out")"
	report_json "$T.json" "$T.trace" || return 1
	expect_site "$T.json" before_take 10 1000 0 0
}

# taken NAME MODE SIG TEXT [MPROF_OPTIONS...]: replace, and mprof says the
# program took the signal (TEXT) and that it kept one toggle from it;
# recording stayed on.
taken() {
	local name=$1 mode=$2 sig=$3 text=$4
	shift 4
	OLD=default replace "$name" "$mode" "$sig" "$@" || return
	expect_match "$name: mprof says the program took the signal" "^mprof: $text\$" \
		"$(cat "$WORK/$name.err")"
	expect_match "$name: mprof says it kept the signal" \
		"^mprof: warning: the toggle signal sent to mprof was not passed on \(1 time\): .*replace handles it itself, so it cannot toggle recording\$" \
		"$(cat "$WORK/$name.err")"
	expect_site "$WORK/$name.json" after_take 20 4000 0 0
}

own="the program replaced mprof's handler of the toggle signal \(SIGUSR2\) with its own"
for mode in sigaction siginfo signal sigset bsd_signal sysv_signal; do
	taken "$mode" "$mode" USR2 "$own"
done
# syscall(SYS_rt_sigaction): seen, and the old action read back is SIG_DFL
[ "$(uname -m)" = x86_64 ] && OLD=default replace raw raw USR2 &&
	expect_match "raw: mprof says it kept the signal" \
		"^mprof: warning: the toggle signal sent to mprof was not passed on \(1 time\)" \
		"$(cat "$WORK/raw.err")" &&
	expect_site "$WORK/raw.json" after_take 20 4000 0 0
taken rt-sigaction sigaction RTMIN+3 \
	"the program replaced mprof's handler of the toggle signal \(a real-time signal\) with its own" \
	--toggle-signal RTMIN+3
taken ignore ignore USR2 "the program set the toggle signal \(SIGUSR2\) to be ignored over mprof's handler"

# SIG_DFL: mprof's handler stands for the default as at the start
OLD=default,default replace default default USR2 &&
	expect_site "$WORK/default.json" after_take 0 0 0 0
expect_no_match "default: no word of the toggle signal" 'toggle signal' \
	"$(cat "$WORK/default.err")"
finish
