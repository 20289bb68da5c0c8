#!/bin/bash
# early-analyzer.sh - `mprof run` starts the analyzer of its symbolize step
# while the program runs, and hands it the work over a socket when the
# program ends: the trace gets its symbols (file:line) also when the
# program deleted itself (its descriptor goes with the request), when the
# early analyzer was killed (one is started at the end instead), and after
# a ^C or a SIGTERM sent to the whole process group (the early analyzer
# has them blocked: they are the program's),
# and when it was killed with the request unread (one is started then);
# none is left running after the run, nor after the launcher is killed
# (also when the process group was stopped first).
# Program and facts: tests/progs/early_analyzer.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work

# expect_named LABEL TRACE: early_alloc's site, named, with file:line.
expect_named() {
	local label=$1 trace=$2
	report_json "$WORK/$label.json" "$trace" || return
	expect_site "$WORK/$label.json" early_alloc 6 14070 6 14070
	expect_frame_at "$label" "$WORK/$label.json" early_alloc early_analyzer.c
}

# gone PID: whether process PID has ended (gone, or a zombie of another).
gone() {
	local state
	state=$(awk '{ sub(/.*\) /, ""); print $1 }' "/proc/$1/stat" 2>/dev/null)
	[ -z "$state" ] || [ "$state" = Z ]
}

# in_receive PID: PID is blocked in recvmsg (x86-64 system call 47), that
# is waiting for the launcher's request, past the point where it asked to
# die with the launcher (before that, a process stopped cannot die of it).
in_receive() {
	local nr
	read -r nr _ <"/proc/$1/syscall" 2>/dev/null && [ "$nr" = 47 ]
}

# wait_until TENTHS COMMAND...: runs COMMAND every 0.1 s until it
# succeeds, at most TENTHS times; its last status.
wait_until() {
	local tenths=$1
	shift
	for _ in $(seq "$tenths"); do
		"$@" && return 0
		sleep 0.1
	done
	return 1
}

for mode in plain deleted killed interrupt terminate; do
	mkdir "$WORK/$mode"
	build_c "$WORK/$mode/prog" "$PROGS_DIR/early_analyzer.c"
	# a cache of its own: the symbols must come from the program's file
	MPROF_SYMBOL_CACHE="$WORK/$mode/cache" RUN_NAME=$mode \
		run_cmd 120 "$mode" setsid "$MPROF" run -o "$WORK/$mode/trace" -- "$WORK/$mode/prog" "$mode"
	expect_eq "$mode: exit status" 0 "$RUN_STATUS"
	expect_match "$mode: a helper came" '^helper [0-9]+$' "$(head -n 1 "$RUN_OUT")"
	expect_eq "$mode: program done" "$mode done" "$(tail -n 1 "$RUN_OUT")"
	expect_eq "$mode: nothing said about symbols or unrecorded processes" "" \
		"$(grep -E 'embedding symbols|not recorded|mprof-analyze|the analyzer' "$RUN_ERR")"
	helper=$(awk '/^helper [0-9]/ { print $2; exit }' "$RUN_OUT")
	if [ -n "$helper" ]; then
		gone "$helper" && gone_now=yes || gone_now=no
		expect_eq "$mode: the early analyzer is gone after the run" yes "$gone_now"
	fi
	[ "$mode" = interrupt ] &&
		expect_eq "interrupt: the early analyzer outlived ^C" "helper alive" \
			"$(sed -n 2p "$RUN_OUT")"
	[ "$mode" = terminate ] &&
		expect_eq "terminate: the early analyzer outlived a SIGTERM to the group" \
			"helper alive" "$(sed -n 2p "$RUN_OUT")"
	MPROF_SYMBOL_CACHE="$WORK/$mode/cache" expect_named "$mode" "$WORK/$mode/trace"
done

# The launcher killed while the program runs: the early analyzer ends by
# itself (its socket closes); the program runs on.
mkdir "$WORK/orphan"
build_c "$WORK/orphan/prog" "$PROGS_DIR/early_analyzer.c"
"$MPROF" run -o "$WORK/orphan/trace" -- "$WORK/orphan/prog" wait "$WORK/orphan/go" \
	</dev/null >"$WORK/orphan.out" 2>"$WORK/orphan.err" &
launcher=$!
wait_until 300 grep -q '^helper' "$WORK/orphan.out"
helper=$(awk '/^helper [0-9]/ { print $2; exit }' "$WORK/orphan.out")
expect_match "orphan: a helper came" '^[0-9]+$' "$helper"
kill -KILL "$launcher"
wait "$launcher" 2>/dev/null
if [ -n "$helper" ]; then
	wait_until 300 gone "$helper"
	gone "$helper" && gone_now=yes || gone_now=no
	expect_eq "orphan: the early analyzer ended after the launcher was killed" yes "$gone_now"
fi
touch "$WORK/orphan/go"
wait_until 300 grep -q '^wait done' "$WORK/orphan.out"
expect_eq "orphan: the program ran on to its end" "wait done" "$(tail -n 1 "$WORK/orphan.out")"

# The early analyzer killed after the request reached its socket but
# before it took it (as a SIGTERM to the process group just before the
# program's end does on a busy host): one is started instead, without a
# warning.  The program stops it; it is killed once the request waits in
# its socket (ss's receive queue).  Needs ss (iproute2).
if command -v ss >/dev/null; then
	mkdir "$WORK/stopped"
	build_c "$WORK/stopped/prog" "$PROGS_DIR/early_analyzer.c"
	MPROF_SYMBOL_CACHE="$WORK/stopped/cache" timeout -k 5 120 \
		"$MPROF" run -o "$WORK/stopped/trace" -- "$WORK/stopped/prog" stopped \
		</dev/null >"$WORK/stopped.out" 2>"$WORK/stopped.err" &
	launcher=$!
	wait_until 600 grep -q '^stopped done' "$WORK/stopped.out"
	helper=$(awk '/^helper [0-9]/ { print $2; exit }' "$WORK/stopped.out")
	expect_match "stopped: a helper came" '^[0-9]+$' "$helper"
	queued=0
	for _ in $(seq 600); do
		[ -n "$helper" ] || break
		queued=$(ss -xpn 2>/dev/null | awk -v p="pid=$helper," 'index($0, p) { print $3; exit }')
		[ "${queued:-0}" -gt 0 ] && break
		sleep 0.1
	done
	expect_match "stopped: the request waits in its socket" '^[1-9][0-9]*$' "$queued"
	[ -n "$helper" ] && kill -KILL "$helper"
	wait "$launcher"
	expect_eq "stopped: exit status" 0 "$?"
	expect_eq "stopped: nothing said about symbols" "" \
		"$(grep -E 'embedding symbols|the analyzer' "$WORK/stopped.err")"
	rm "$WORK/stopped/prog"
	MPROF_SYMBOL_CACHE="$WORK/stopped/cache" expect_named stopped "$WORK/stopped/trace"
else
	echo "note: no ss: the analyzer killed with the request unread is not tried"
fi

# The process group stopped, then the launcher killed: the waiting
# analyzer, stopped too, dies with the launcher (it would otherwise wait
# for a SIGCONT for good); the program, continued, runs on.
mkdir "$WORK/stopgroup"
build_c "$WORK/stopgroup/prog" "$PROGS_DIR/early_analyzer.c"
setsid "$MPROF" run -o "$WORK/stopgroup/trace" -- "$WORK/stopgroup/prog" wait "$WORK/stopgroup/go" \
	</dev/null >"$WORK/stopgroup.out" 2>"$WORK/stopgroup.err" &
wait_until 300 grep -q '^helper' "$WORK/stopgroup.out"
helper=$(awk '/^helper [0-9]/ { print $2; exit }' "$WORK/stopgroup.out")
expect_match "stopped group: a helper came" '^[0-9]+$' "$helper"
if [ -n "$helper" ]; then
	launcher=$(awk '{ sub(/.*\) /, ""); print $2 }' "/proc/$helper/stat")
	group=$(awk '{ sub(/.*\) /, ""); print $3 }' "/proc/$helper/stat")
	wait_until 300 in_receive "$helper" && waiting=yes || waiting=no
	expect_eq "stopped group: the analyzer waits for the request" yes "$waiting"
	kill -STOP -- "-$group"
	kill -KILL "$launcher"
	wait_until 300 gone "$helper"
	gone "$helper" && gone_now=yes || gone_now=no
	expect_eq "stopped group: the stopped analyzer died with the launcher" yes "$gone_now"
	kill -CONT -- "-$group"
	touch "$WORK/stopgroup/go"
	wait_until 300 grep -q '^wait done' "$WORK/stopgroup.out"
	expect_eq "stopped group: the program ran on to its end" "wait done" \
		"$(tail -n 1 "$WORK/stopgroup.out")"
fi

# A request that is not one: one line, status 1; none at all: status 0.
# request_to_analyzer WHAT: the analyzer waits on a socket that gets a
# malformed request (bad) or is closed (none).
request_to_analyzer() {
	run_cmd 30 "$1-request" "$PYTHON" -c '
import socket, subprocess, sys
a, b = socket.socketpair()
p = subprocess.Popen([sys.argv[1], "symbolize", "--request-fd", str(b.fileno())],
                     pass_fds=[b.fileno()])
b.close()
if sys.argv[2] == "bad":
    a.sendall(b"MPSQ" + bytes(20))
a.close()
sys.exit(p.wait())' "$MPROF_ANALYZE" "$1"
}
request_to_analyzer none
expect_eq "no request: status" 0 "$RUN_STATUS"
expect_eq "no request: silent" "" "$(cat "$RUN_ERR")"
request_to_analyzer bad
expect_eq "bad request: status" 1 "$RUN_STATUS"
expect_match "bad request: one line" '^mprof-analyze: symbolize: bad request from mprof run: ' \
	"$(cat "$RUN_ERR")"
expect_eq "bad request: only that line" 1 "$(wc -l <"$RUN_ERR")"
finish
