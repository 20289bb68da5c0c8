#!/bin/bash
# run-signals.sh - signals the program's own process tree sends are not
# passed back to it: mprof sits in the program's process group and is its
# parent, so a kill(0, SIGUSR1) of the program or of its child reached mprof
# too, and a SIGWINCH the program sent its parent reached mprof instead of
# the shell; mprof passed each on to the program, which caught SIGUSR1 three
# or four times instead of twice, and a SIGWINCH it never gets without
# mprof.  (Redis, told by a second SIGINT that "you insist", exits at once
# with status 1 instead of shutting down.)  A signal from outside the
# program's tree still reaches it, once.
# Program and facts: tests/progs/run_signals.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/run_signals" "$PROGS_DIR/run_signals.c"
command -v setsid >/dev/null || skip "setsid (util-linux) not found"

# run_in_session NAME CMD...: CMD in a session of its own (its own process
# group, so kill(0) reaches no one of the test's), READY awaited, then
# SIGRTMIN+2 sent to the pid started; RUN_STATUS set.
run_in_session() {
	local name=$1 pid
	shift
	rm -f "$WORK/ready"
	timeout -s KILL 60 setsid "$@" "$WORK/ready" >"$WORK/$name.out" 2>"$WORK/$name.err" &
	pid=$!
	for _ in $(seq 400); do
		[ -e "$WORK/ready" ] && break
		sleep 0.05
	done
	# the setsid process executed the command (the test's shell is no
	# group leader), so pid is the program's or mprof's; timeout's is
	# its parent
	kill -s RTMIN+2 "$(pgrep -P "$pid" | head -n 1)"
	wait "$pid"
	RUN_STATUS=$?
}

run_in_session native "$WORK/run_signals"
expect_eq "native: exit status" 0 "$RUN_STATUS"
expect_eq "native: SIGUSR1 twice (its own and its child's), no SIGWINCH" \
	"usr1 2 winch 0" "$(cat "$WORK/native.out")"

run_in_session mprof "$MPROF" run -q -o "$WORK/trace" -- "$WORK/run_signals"
expect_eq "mprof run: exit status" 0 "$RUN_STATUS"
expect_eq "mprof run: the same signals, none passed back by mprof" \
	"usr1 2 winch 0" "$(cat "$WORK/mprof.out")"
expect_eq "mprof run: no message" "" "$(cat "$WORK/mprof.err")"
report_json "$WORK/r.json" "$WORK/trace" && expect_site "$WORK/r.json" record_me 1 100 0 0
finish
