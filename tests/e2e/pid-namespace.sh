#!/bin/bash
# pid-namespace.sh - processes in a PID namespace of their own are known by
# the pids mprof sees: a child that ends by _exit is "ended", not "running"
# (its pid in the namespace, 2, is kthreadd's outside), and a process's RSS
# is its own (pid 1 in the namespace read the RSS of the machine's init);
# their traces are named after those pids.  A launcher stopped for 0.5 s
# while such a process fills its rings loses nothing: its recorder waits, as
# it does outside a namespace (kill(pid, 0) from inside said the launcher
# was gone, and recording stopped).
# Skipped where the program cannot make a PID namespace.
# Program and facts: tests/progs/pid_namespace.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/pid_namespace" "$PROGS_DIR/pid_namespace.c" -pthread

# max_rss_bytes REPORT: the largest RSS sample of the report's timeline.
max_rss_bytes() {
	json_eval "$1" "max([r['rss_bytes'] for r in d['timeline']['rss']] or [0])"
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
# the two traces, told apart by their block
first_trace= second_trace=
for f in "$WORK"/tree/t.*; do
	case "$f" in *.json) continue ;; esac
	report_json "$f.json" "$f" || continue
	case "$(q "$f.json" sum allocated_bytes hold_block)" in
	52428800) first_trace=$f ;;
	31457280) second_trace=$f ;;
	esac
done
expect_eq "tree: the first's trace is named after its pid" "$WORK/tree/t.$first" "$first_trace"
expect_eq "tree: the second's trace is named after its pid" "$WORK/tree/t.$second" "$second_trace"

if [ -n "$first_trace" ] && cp "$first_trace.json" "$WORK/first.json"; then
	expect_eq "first: pid" "$first" "$(q "$WORK/first.json" summary program.pid)"
	expect_eq "first: exit status" 5 "$(q "$WORK/first.json" summary program.exit_status)"
	expect_site "$WORK/first.json" hold_block 1 52428800 0 0
	expect_range "first: its RSS samples reach its 50 MiB block" 52428800 157286400 \
		"$(max_rss_bytes "$WORK/first.json")"
fi
if [ -n "$second_trace" ] && cp "$second_trace.json" "$WORK/second.json"; then
	expect_eq "second: pid" "$second" "$(q "$WORK/second.json" summary program.pid)"
	expect_eq "second: state at the end" ended "$(q "$WORK/second.json" summary end.process_state)"
	expect_eq "second: not ended early" null "$(q "$WORK/second.json" summary ended_early)"
	expect_eq "second: exit status (unknown after _exit)" null \
		"$(q "$WORK/second.json" summary program.exit_status)"
	expect_site "$WORK/second.json" hold_block 1 31457280 1 31457280
	expect_range "second: its RSS samples reach its 30 MiB block" 31457280 136314880 \
		"$(max_rss_bytes "$WORK/second.json")"
fi

# The namespace's process fills its rings (16 KiB asked, the 64 KiB least
# given) while the launcher is stopped: mprof is started here, not by
# mprof_run, to be stopped by its pid.
mkdir -p "$WORK/busy"
MPROF_RING_KIB=16 "$MPROF" run -q -o "$WORK/busy/t" -- "$WORK/pid_namespace" busy \
	>"$WORK/busy.out" 2>"$WORK/busy.err" </dev/null &
launcher=$!
(sleep 120 && kill -KILL "$launcher") 2>/dev/null &
watchdog=$!
for _ in $(seq 1 400); do
	grep -q '^ns 1 ' "$WORK/busy.out" && break
	sleep 0.025
done
kill -STOP "$launcher"
sleep 0.5
kill -CONT "$launcher"
wait "$launcher"
status=$?
kill "$watchdog" 2>/dev/null
expect_eq "busy: exit status" 5 "$status"
busy=$(sed -n 's/^ns 1 \([0-9]*\)$/\1/p' "$WORK/busy.out")
if report_json "$WORK/busy.json" "$WORK/busy/t.$busy"; then
	expect_range "busy: its threads waited for room in their rings (the stop hit them)" \
		1 100000000 "$(q "$WORK/busy.json" summary profiler.ring_waits)"
	expect_whole_trace busy "$WORK/busy.json" 5 -
	expect_site "$WORK/busy.json" churn_block 2400000 - 0 0
fi
finish
