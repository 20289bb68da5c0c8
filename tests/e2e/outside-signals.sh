#!/bin/bash
# outside-signals.sh - signals sent to mprof from outside its PID namespace
# reach the program, as `docker stop` and a container runtime send them to
# a container's first process.  The kernel gives such a sender's pid as 0,
# and mprof took a signal without a sender pid for none to pass on: the
# program never got SIGTERM and went on running (redis-server until the
# runtime's SIGKILL).  Here mprof runs in a new PID namespace (unshare(1),
# skipped where it cannot make one) and the test, outside it, sends it
# SIGUSR1, SIGUSR2, SIGWINCH, SIGALRM and a sigqueue()'d SIGRTMIN+1.
# Program and facts: tests/progs/signal_commands.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/signal_commands" "$PROGS_DIR/signal_commands.c"

run_in_pidns() {
	unshare --pid --fork "$@" 2>/dev/null ||
		unshare --user --map-root-user --pid --fork "$@" 2>/dev/null
}
command -v unshare >/dev/null 2>&1 && run_in_pidns true ||
	skip "unshare(1) cannot run a program in a new PID namespace here"

# wait_for CMD...: up to 50 s for CMD to succeed (a loaded host took 3.7 s
# for `mprof run true`; the run's own limit is 120 s, the program's 60 s)
wait_for() {
	for _ in $(seq 1000); do
		"$@" && return 0
		sleep 0.05
	done
	return 1
}

timeout -s KILL 120 bash -c 'unshare --pid --fork "$@" 2>/dev/null ||
	unshare --user --map-root-user --pid --fork "$@"' - \
	"$MPROF" run -q -o "$WORK/t" -- "$WORK/signal_commands" "$WORK/ready" \
	>"$WORK/run.out" 2>"$WORK/run.err" &
outer=$!
wait_for test -e "$WORK/ready" || hard_error "the program did not start"
# descendants PID: its children, theirs, ... (timeout -> bash -> unshare ->
# mprof, pid 1 in the namespace -> the program)
descendants() {
	local c
	for c in $(pgrep -P "$1"); do
		echo "$c"
		descendants "$c"
	done
}
mprof_pid=$(descendants "$outer" | while read -r p; do
	[ "$(cat "/proc/$p/comm" 2>/dev/null)" = mprof ] && echo "$p"; done | head -n 1)
[ -n "$mprof_pid" ] || hard_error "mprof's pid not found"
kill -USR1 "$mprof_pid"
wait_for grep -qxF "got USR1" "$WORK/run.out"
kill -USR2 "$mprof_pid"
wait_for grep -qxF "got USR2" "$WORK/run.out"
kill -WINCH "$mprof_pid"
wait_for grep -qxF "got WINCH" "$WORK/run.out"
kill -ALRM "$mprof_pid"
wait_for grep -qxF "got ALRM" "$WORK/run.out"
"$WORK/signal_commands" send "$mprof_pid" "$(($(kill -l RTMIN) + 1))" 42
wait "$outer"
expect_eq "exit status (3: the program's signals did not all come)" 0 "$?"
expect_eq "every signal reached the program, the value with it" \
	"got USR1|got USR2|got WINCH|got ALRM|got RTMIN+1 value 42" \
	"$(tr '\n' '|' <"$WORK/run.out" | sed 's/|$//')"
expect_eq "mprof's messages" "" "$(cat "$WORK/run.err")"
report_json "$WORK/r.json" "$WORK/t" && expect_site "$WORK/r.json" on_command 5 500 5 500
finish
