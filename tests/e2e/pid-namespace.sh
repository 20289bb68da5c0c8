#!/bin/bash
# pid-namespace.sh - processes in a PID namespace of their own are known by
# the pids mprof sees: a child that ends by _exit is "ended", not "running"
# (its pid in the namespace, 2, is kthreadd's outside), and a process's RSS
# is its own (pid 1 in the namespace read the RSS of the machine's init);
# their traces are named after those pids.  A launcher stopped for 0.5 s
# while such a process fills its rings loses nothing: its recorder waits, as
# it does outside a namespace (kill(pid, 0) from inside said the launcher
# was gone, and recording stopped).  Processes that mounted a /proc of
# their namespace, where they cannot read the pid mprof sees, are found by
# mprof: named, followed and sampled by that pid (they were traces t.0 and
# t.0.2 without pid or RSS, taken for ended at once and finished before
# they freed their block).
# An mprof run in a PID namespace of its own leaves another run's live
# session directory alone (it took the directory's launcher, whose pid it
# cannot see, for gone, and removed it: what that run's program started
# later was not recorded).
# Skipped where the program cannot make a PID namespace; the /proc part
# where it cannot mount one, the last part where unshare(1) cannot run mprof
# in one.
# Program and facts: tests/progs/pid_namespace.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/pid_namespace" "$PROGS_DIR/pid_namespace.c" -pthread

# max_rss_bytes REPORT: the largest RSS sample of the report's timeline.
max_rss_bytes() {
	json_eval "$1" "max([r['rss_bytes'] for r in d['timeline']['rss']] or [0])"
}

# reports_make DIR: the JSON report TRACE.json of each child trace DIR/t.*.
reports_make() {
	local f
	for f in "$1"/t.*; do
		case "$f" in *.json*) continue ;; esac
		[ -f "$f" ] && report_json "$f.json" "$f"
	done
}

# trace_with_block DIR BYTES: the child trace in DIR whose hold_block took
# BYTES (reports_make made its report).
trace_with_block() {
	local f
	for f in "$1"/t.*; do
		case "$f" in *.json*) continue ;; esac
		if [ -f "$f.json" ] && [ "$(q "$f.json" sum allocated_bytes hold_block)" = "$2" ]; then
			echo "$f"
			return
		fi
	done
}

# watchdog_start PID: kills PID (a run started in the background) after
# 120 s, unless watchdog_stop comes first.
watchdog_start() {
	(
		trap 'kill "$nap" 2>/dev/null; exit 0' TERM
		sleep 120 &
		nap=$!
		wait "$nap" && kill -KILL "$1"
	) >/dev/null 2>&1 &
	WATCHDOG=$!
}
watchdog_stop() {
	kill "$WATCHDOG" 2>/dev/null
	wait "$WATCHDOG" 2>/dev/null
}

mkdir -p "$WORK/tree"
RUN_NAME=tree mprof_run 60 "$WORK/tree/t" -- "$WORK/pid_namespace" tree
[ "$RUN_STATUS" -eq 77 ] && skip "no PID namespace here: $(program_stderr "$RUN_ERR")"
expect_eq "tree: exit status" 5 "$RUN_STATUS"
first=$(sed -n 's/^ns 1 \([0-9]*\)$/\1/p' "$RUN_OUT")
second=$(sed -n 's/^ns 2 \([0-9]*\)$/\1/p' "$RUN_OUT")
expect_match "tree: the first process's pid outside the namespace" '^[0-9]+$' "$first"
expect_match "tree: the second process's pid outside the namespace" '^[0-9]+$' "$second"
expect_no_match "tree: mprof says no process was still running" 'still running' "$(cat "$RUN_ERR")"
if report_json "$WORK/root.json" "$WORK/tree/t"; then
	expect_eq "tree: the program, in mprof's namespace, has no other pid" null \
		"$(q "$WORK/root.json" summary program.ns_pid)"
fi
# the two traces, told apart by their block
reports_make "$WORK/tree"
first_trace=$(trace_with_block "$WORK/tree" 52428800)
second_trace=$(trace_with_block "$WORK/tree" 31457280)
expect_eq "tree: the first's trace is named after its pid" "$WORK/tree/t.$first" "$first_trace"
expect_eq "tree: the second's trace is named after its pid" "$WORK/tree/t.$second" "$second_trace"

if [ -n "$first_trace" ] && cp "$first_trace.json" "$WORK/first.json"; then
	expect_eq "first: pid" "$first" "$(q "$WORK/first.json" summary program.pid)"
	expect_eq "first: pid in its namespace" 1 "$(q "$WORK/first.json" summary program.ns_pid)"
	expect_eq "first: exit status" 5 "$(q "$WORK/first.json" summary program.exit_status)"
	expect_site "$WORK/first.json" hold_block 1 52428800 0 0
	expect_range "first: its RSS samples reach its 50 MiB block" 52428800 157286400 \
		"$(max_rss_bytes "$WORK/first.json")"
fi
if [ -n "$second_trace" ] && cp "$second_trace.json" "$WORK/second.json"; then
	expect_eq "second: pid" "$second" "$(q "$WORK/second.json" summary program.pid)"
	expect_eq "second: pid in its namespace" 2 "$(q "$WORK/second.json" summary program.ns_pid)"
	expect_match "second: the report gives both pids" \
		"^program: .* \\(pid $second, 2 in its PID namespace\\), (exited with status 3|ended without exit\\(\\) .*)\$" \
		"$("$MPROF" report -n 0 "$WORK/tree/t.$second" 2>&1)"
	expect_eq "second: state at the end" ended "$(q "$WORK/second.json" summary end.process_state)"
	expect_eq "second: not ended early" null "$(q "$WORK/second.json" summary ended_early)"
	# _exit(3) leaves no exit note: 3 when the launcher saw the zombie's
	# status (as the report line above allows), else unknown
	expect_match "second: exit status (3 from its zombie, or unknown after _exit)" '^(null|3)$' \
		"$(q "$WORK/second.json" summary program.exit_status)"
	expect_site "$WORK/second.json" hold_block 1 31457280 1 31457280
	expect_range "second: its RSS samples reach its 30 MiB block" 31457280 136314880 \
		"$(max_rss_bytes "$WORK/second.json")"
fi

# The namespace's process fills its rings (16 KiB asked, the 64 KiB least
# given) while the launcher is stopped: mprof is started here, not by
# mprof_run, to be stopped by its pid.  The program's threads start once
# the launcher is stopped (busy.go): a test run late on a loaded host
# stopped it after they were done.
mkdir -p "$WORK/busy"
MPROF_RING_KIB=16 "$MPROF" run -q -o "$WORK/busy/t" -- "$WORK/pid_namespace" busy "$WORK/busy.go" \
	>"$WORK/busy.out" 2>"$WORK/busy.err" </dev/null &
launcher=$!
watchdog_start "$launcher"
for _ in $(seq 1 2400); do # up to 60 s
	grep -q '^ns 1 ' "$WORK/busy.out" && break
	sleep 0.025
done
kill -STOP "$launcher"
: >"$WORK/busy.go"
sleep 1
kill -CONT "$launcher"
wait "$launcher"
status=$?
watchdog_stop
expect_eq "busy: exit status" 5 "$status"
busy=$(sed -n 's/^ns 1 \([0-9]*\)$/\1/p' "$WORK/busy.out")
if report_json "$WORK/busy.json" "$WORK/busy/t.$busy"; then
	expect_range "busy: its threads waited for room in their rings (the stop hit them)" \
		1 100000000 "$(q "$WORK/busy.json" summary profiler.ring_waits)"
	expect_whole_trace busy "$WORK/busy.json" 5 -
	expect_site "$WORK/busy.json" churn_block 2400000 - 0 0
fi

mkdir -p "$WORK/mounted"
RUN_NAME=mounted mprof_run 60 "$WORK/mounted/t" -- "$WORK/pid_namespace" mounted
if [ "$RUN_STATUS" -eq 77 ]; then
	echo "note: no /proc of a PID namespace here: $(program_stderr "$RUN_ERR")"
else
	expect_eq "mounted: exit status" 5 "$RUN_STATUS"
	expect_eq "mounted: child traces named after a pid that is not 0" "t.N t.N t.N" \
		"$(cd "$WORK/mounted" && ls t.* | sed 's/^t\.[1-9][0-9]*$/t.N/' | tr '\n' ' ' |
			sed 's/ $//')"
	expect_no_match "mounted: mprof says no process was still running or not recorded" \
		'still running|not recorded' "$(cat "$RUN_ERR")"
	reports_make "$WORK/mounted"
	for bytes in 31457280 20971520; do
		f=$(trace_with_block "$WORK/mounted" "$bytes")
		expect_ne "mounted, $bytes B: its trace" "" "$f"
		[ -n "$f" ] || continue
		expect_eq "mounted, $bytes B: the trace is named after its pid" \
			"t.$(q "$f.json" summary program.pid)" "$(basename "$f")"
		expect_eq "mounted, $bytes B: state at the end" ended \
			"$(q "$f.json" summary end.process_state)"
		expect_eq "mounted, $bytes B: not ended early" null "$(q "$f.json" summary ended_early)"
		expect_site "$f.json" hold_block 1 "$bytes" 0 0
		expect_range "mounted, $bytes B: its RSS samples reach its block" "$bytes" \
			$((bytes + 104857600)) "$(max_rss_bytes "$f.json")"
	done
fi

# The run's session directory made to look stale (its mtime a minute
# back) while its program waits, then a run of mprof in a new PID
# namespace, which sweeps stale directories; then the program forks a
# child, whose recorder needs the directory.  The program waits for
# $WORK/sweep.go, made after the sweep was checked: with a fixed 3 s, on a
# loaded host the check found the directory gone though the child was
# recorded in it (the run could end before the sweeping run did).
run_in_pidns() {
	unshare --pid --fork "$@" 2>/dev/null ||
		unshare --user --map-root-user --pid --fork "$@" 2>/dev/null
}
if ! command -v unshare >/dev/null 2>&1 || ! run_in_pidns true; then
	echo "note: unshare(1) cannot run a program in a new PID namespace here"
else
	mkdir -p "$WORK/sweep"
	"$MPROF" run -q -o "$WORK/sweep/t" -- "$WORK/pid_namespace" late "$WORK/sweep.go" \
		>"$WORK/sweep.out" 2>"$WORK/sweep.err" </dev/null &
	launcher=$!
	watchdog_start "$launcher"
	# (once the program's process file is made: nothing changes the
	# directory then until the fork; up to 30 s, as `mprof run true` alone
	# took 3.7 s on a loaded host)
	session=
	for _ in $(seq 1 3000); do
		session=$(ls -d /dev/shm/mprof-"$launcher"-* "${TMPDIR:-/tmp}"/mprof-"$launcher"-* \
			/tmp/mprof-"$launcher"-* 2>/dev/null | head -n 1)
		[ -n "$session" ] && ls "$session"/p.* >/dev/null 2>&1 && break
		sleep 0.01
	done
	expect_ne "sweep: the run's session directory" "" "$session"
	touch -d '-1 minute' "$session"
	run_in_pidns "$MPROF" run -q -o "$WORK/sweep/other" -- true >"$WORK/other.out" 2>&1
	expect_true "sweep: the session directory is still there" test -d "$session"
	: >"$WORK/sweep.go"
	wait "$launcher"
	status=$?
	watchdog_stop
	expect_eq "sweep: exit status" 3 "$status"
	expect_no_match "sweep: mprof says nothing was left unrecorded" 'not recorded' \
		"$(cat "$WORK/sweep.err")"
	reports_make "$WORK/sweep"
	hold=$(trace_with_block "$WORK/sweep" 31457280)
	expect_ne "sweep: the child's trace, with its 30 MiB block" "" "$hold"
	[ -z "$hold" ] || expect_site "$hold.json" hold_block 1 31457280 0 0
fi
finish
