#!/bin/bash
# control-race.sh - runtime start and stop (mprof.h, --paused, the toggle
# signal) while threads allocate.  Every scenario runs ROUNDS times (each
# run itself starts and stops many times) and checks exact counts: the
# blocks allocated inside a window the API opened are all recorded, blocks
# recorded before a stop stay matched with their frees after it (nothing of
# ours live at exit), and in --paused (set) mode no free is unmatched.
# - start while workers are mid-allocation, stop in the middle of sampled
#   allocations, restart with another rate without a stop, exact and
#   sampled runs, and a run that started recording (log mode);
# - a thread exits while recording stops;
# - fork from one thread while others allocate and the main thread starts
#   and stops: no child hangs, each child's trace has its 30 blocks;
# - SIGUSR2 toggles a --paused run; a program with its own SIGUSR2 handler
#   keeps it (and nothing is toggled); RTMIN+3, sent by kill from outside,
#   toggles under each of its names and its number; a program that crashes
#   under --paused still dies by SIGSEGV, also when a program hands its
#   children MPROF_TOGGLE_SIGNAL=11; --toggle-signal refuses every
#   signal but USR1, USR2 and SIGRTMIN..SIGRTMAX with one line, and takes
#   none in any case;
# - markers and CONTROL records stand in the trace in the order they were
#   written, across threads (tests/tools/trace_markers reads them);
# - without mprof the API returns -ENOSYS and 0 and the output is the same.
# Program and facts: tests/progs/control_race.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/cr" "$PROGS_DIR/control_race.c" -pthread -I"$abs_top_srcdir/include"
ROUNDS=${CONTROL_RACE_ROUNDS:-2}
P=$WORK/cr

# script_check NAME EXACT_STARTS SET_MODE RUN_OPTIONS... -- CMDS...
script_check() {
	local name=$1 starts=$2 set_mode=$3 r
	shift 3
	local opts=() cmds
	while [ "$1" != -- ]; do opts+=("$1"); shift; done
	shift
	cmds=("$@")
	for r in $(seq "$ROUNDS"); do
		RUN_NAME=$name mprof_run 60 "$WORK/$name.$r" "${opts[@]}" -- "$P" script "${cmds[@]}"
		expect_eq "$name.$r: exit status" 0 "$RUN_STATUS"
		expect_eq "$name.$r: stdout" "control_race script done" "$(cat "$RUN_OUT")"
		report_json "$WORK/$name.$r.json" "$WORK/$name.$r" || continue
		R="$WORK/$name.$r.json"
		expect_site "$R" window_exact $((starts * 100)) $((starts * 4800)) 0 0
		expect_eq "$name.$r: noise: nothing live at exit" 0 "$(q "$R" sum leaked_blocks noise)"
		[ "$set_mode" = set ] &&
			expect_eq "$name.$r: every free matched" 0 "$(q "$R" summary unmatched_frees)"
	done
}

EVERY20="every stop every stop every stop every stop every stop every stop every stop every stop every stop every stop"
# shellcheck disable=SC2086
script_check paused 10 set --paused -- $EVERY20
script_check rates 4 set --paused -- every 4096 stop 1 65536 every stop run 1 stop
script_check sampled 4 set --paused --sample-rate 1K -- run 1 stop run every stop every 1 512 stop
# shellcheck disable=SC2086
script_check logmode 10 log -- stop $EVERY20

# --- markers and CONTROL records in order ---
MARKERS="$abs_top_builddir/tests/tools/trace_markers"
expect_eq "rates.1: markers and CONTROL records in order" "marker cmd-0
control 1 0
marker cmd-1
control 1 4096
marker cmd-2
control 0 4096
marker cmd-3
control 1 1
marker cmd-4
control 1 65536
marker cmd-5
control 1 0
marker cmd-6
control 0 0
marker cmd-7
control 1 0
marker cmd-8
control 1 1
marker cmd-9
control 0 1" "$("$MARKERS" "$WORK/rates.1" 2>&1)"
expect_eq "sampled.1: run is the run's rate" "control 1 1024" \
	"$("$MARKERS" "$WORK/sampled.1" 2>&1 | sed -n 2p)"
for r in $(seq "$ROUNDS"); do
	RUN_NAME=markers mprof_run 60 "$WORK/markers.$r" -- "$P" markers
	expect_eq "markers.$r: exit status" 0 "$RUN_STATUS"
	expect_eq "markers.$r: 200 markers of 4 threads in the order written" \
		"$(for k in $(seq 0 49); do for i in 0 1 2 3; do echo "marker t$i-$k"; done; done)" \
		"$("$MARKERS" "$WORK/markers.$r" 2>&1)"
done

# --- a thread exits while recording stops ---
for r in $(seq "$ROUNDS"); do
	RUN_NAME=threads mprof_run 60 "$WORK/threads.$r" --paused -- "$P" threads 20
	expect_eq "threads.$r: exit status" 0 "$RUN_STATUS"
	report_json "$WORK/threads.$r.json" "$WORK/threads.$r" || continue
	R="$WORK/threads.$r.json"
	expect_site "$R" window_exact 2000 128000 0 0
	expect_eq "threads.$r: every free matched" 0 "$(q "$R" summary unmatched_frees)"
done

# --- fork from one thread while others allocate ---
for r in $(seq "$ROUNDS"); do
	mkdir -p "$WORK/fork.$r"
	RUN_NAME=fork mprof_run 60 "$WORK/fork.$r/t" --paused -- "$P" fork 6
	expect_eq "fork.$r: exit status (124: a child or the parent hung)" 0 "$RUN_STATUS"
	expect_eq "fork.$r: stdout" "children ok 6
control_race fork done" "$(cat "$RUN_OUT")"
	report_json "$WORK/fork.$r/parent.json" "$WORK/fork.$r/t" || continue
	expect_eq "fork.$r: parent: nothing live at exit" 0 \
		"$(q "$WORK/fork.$r/parent.json" sum leaked_blocks window_exact)"
	expect_eq "fork.$r: parent: every free matched" 0 \
		"$(q "$WORK/fork.$r/parent.json" summary unmatched_frees)"
	expect_no_site "$WORK/fork.$r/parent.json" child_window
	"$MPROF" report --format json "$WORK/fork.$r"/t.* >"$WORK/fork.$r/children.json" 2>&1
	expect_eq "fork.$r: child traces, each with exactly its 30 blocks, none live" "6 6" \
		"$("$PYTHON" - "$WORK/fork.$r/children.json" "$E2E_DIR" <<'PY'
import json, subprocess, sys
sys.path.insert(0, sys.argv[2])
import query
doc = json.load(open(sys.argv[1]))
reports = doc["reports"] if isinstance(doc, dict) and "reports" in doc else doc
good = 0
for r in reports:
    sites = [s for s in query.sites_of(r) if query.site_matches(s, ["child_window"])]
    n = sum(query.site_field(s, "allocations") for s in sites)
    live = sum(query.site_field(s, "leaked_blocks") for s in sites)
    good += n == 30 and live == 0
print(len(reports), good)
PY
)"
done

# --- the toggle signal ---
for r in $(seq "$ROUNDS"); do
	RUN_NAME=signal mprof_run 60 "$WORK/signal.$r" --paused -- "$P" signal
	expect_eq "signal.$r: exit status" 0 "$RUN_STATUS"
	report_json "$WORK/signal.$r.json" "$WORK/signal.$r" || continue
	R="$WORK/signal.$r.json"
	expect_site "$R" window_exact 40 1600 0 0
	expect_no_site "$R" window_sampled
	expect_eq "signal.$r: every free matched" 0 "$(q "$R" summary unmatched_frees)"
done
# A toggle applied inside a realloc (log mode: the free part is recorded
# either way; the CONTROL record goes before its sequence numbers).
RUN_NAME=srealloc mprof_run 60 "$WORK/srealloc" --toggle-signal USR2 -- "$P" signal-realloc
expect_eq "signal-realloc: exit status" 0 "$RUN_STATUS"
expect_eq "signal-realloc: CONTROL records" "control 0 0
control 1 0" "$("$MARKERS" "$WORK/srealloc" 2>&1)"
if report_json "$WORK/srealloc.json" "$WORK/srealloc"; then
	R="$WORK/srealloc.json"
	expect_eq "signal-realloc: trace complete" true "$(q "$R" summary quality.complete)"
	expect_eq "signal-realloc: chunks lost" 0 "$(q "$R" summary quality.chunks_lost)"
	expect_site "$R" window_exact 1 8 0 0
	expect_eq "signal-realloc: the realloc that started again" 1 "$(q "$R" summary calls.realloc)"
	expect_eq "signal-realloc: its free part, of a block allocated while stopped (not unmatched)" \
		"1 0" "$(q "$R" summary frees_of_unrecorded_blocks) $(q "$R" summary unmatched_frees)"
	expect_eq "signal-realloc: the realloc that stopped is a release, not realloc(p, 0)" \
		"1 0" "$(q "$R" summary calls.realloc_release) $(q "$R" summary calls.realloc_to_zero)"
fi
# The same in set mode (--paused): the first toggle starts, so the realloc
# to 100 records its new block only (its old one was never recorded), the
# second stops, so the realloc to 200 records the release of the block of
# 100 only; the last free is of an unrecorded block: nothing is left live.
RUN_NAME=prealloc mprof_run 60 "$WORK/prealloc" --paused --toggle-signal USR2 -- "$P" signal-realloc
expect_eq "paused signal-realloc: exit status" 0 "$RUN_STATUS"
if report_json "$WORK/prealloc.json" "$WORK/prealloc"; then
	R="$WORK/prealloc.json"
	expect_eq "paused signal-realloc: realloc, realloc_release, realloc_to_zero" "1 1 0" \
		"$(q "$R" summary calls.realloc) $(q "$R" summary calls.realloc_release) $(q "$R" summary calls.realloc_to_zero)"
	expect_eq "paused signal-realloc: unmatched frees, live blocks at exit" "0 0" \
		"$(q "$R" summary unmatched_frees) $(q "$R" summary leaked_blocks)"
fi
run_cmd 60 paused-report "$MPROF" report "$WORK/prealloc"
expect_match "paused signal-realloc: the header does not say every allocation was recorded" \
	'^mprof report: .*prealloc \(exact while recording was on; see recorded\)$' \
	"$(head -n 1 "$RUN_OUT")"

RUN_NAME=usr1 mprof_run 60 "$WORK/usr1" --paused --toggle-signal USR1 -- "$P" signal
expect_eq "signal USR2 under --toggle-signal USR1: killed by SIGUSR2" 140 "$RUN_STATUS"

# RTMIN+3 sent from outside (kill -s RTMIN+3, then by number) while the
# program polls until each toggle is applied: window_exact holds exactly
# the 40 blocks between the two signals.  The option names the signal as
# kill -l does (SIG or not, any case), from RTMAX down, or by number.
RTMIN_N=$(kill -l RTMIN)
RTMAX_N=$(kill -l RTMAX)
RT3=$(kill -l RTMIN+3)
# toggled WHAT STATUS T: a signal-wait run of trace T toggled on and off
# ended with STATUS 0 and recorded exactly window_exact's 40 blocks, every
# free matched
toggled() {
	expect_eq "$1: exit status" 0 "$2"
	expect_eq "$1: stdout" "control_race signal-wait done" "$(cat "$3.out")"
	report_json "$3.json" "$3" || return
	expect_site "$3.json" window_exact 40 1600 0 0
	expect_no_site "$3.json" window_sampled
	expect_eq "$1: every free matched" 0 "$(q "$3.json" summary unmatched_frees)"
}
k=0
for form in RTMIN+3 sigrtmin+3 "RTMAX-$((RTMAX_N - RT3))" "$RT3"; do
	k=$((k + 1))
	T=$WORK/rt$k
	timeout -k 5 60 "$MPROF" run -o "$T" --paused --toggle-signal "$form" -- \
		"$P" signal-wait "$T" >"$T.out" 2>"$T.err" &
	mpid=$!
	wait_for_file "$T.pid" "$mpid" && kill -s RTMIN+3 "$(cat "$T.pid")"
	wait_for_file "$T.on" "$mpid" && kill -n "$RT3" "$(cat "$T.pid")"
	wait "$mpid"
	toggled "--toggle-signal $form" "$?" "$T"
done

# The toggle signal sent to mprof itself is passed on to the program (it
# killed the launcher before, as SIGUSR2's default action).
T=$WORK/via-launcher
timeout -k 5 60 "$MPROF" run -o "$T" --paused -- "$P" signal-wait "$T" >"$T.out" 2>"$T.err" &
mpid=$!
wait_for_file "$T.pid" "$mpid" && launcher=$(sed -n "s/^PPid:[[:space:]]*//p" "/proc/$(cat "$T.pid")/status")
expect_match "USR2 sent to mprof: the launcher found" '^[0-9]+$' "$launcher"
kill -USR2 "$launcher"
wait_for_file "$T.on" "$mpid" && kill -USR2 "$launcher"
wait "$mpid"
toggled "USR2 sent to mprof" "$?" "$T"

# Sent to mprof as soon as it has started the program (its own handlers are
# in place then; before, the signal's default action ends mprof), perhaps
# before the program's recorder has installed its handler: the toggle waits
# in the launcher until the program catches it.  (Passed on at once, it
# killed the program by SIGUSR2 in 3 of 4 runs sent 5 ms after the start;
# here the program may be further on, so this passes on that code too at
# times.)
T=$WORK/via-launcher-early
"$MPROF" run -o "$T" --paused -- "$P" signal-wait "$T" >"$T.out" 2>"$T.err" &
mpid=$!
for k in $(seq 3000); do # up to 30 s: a loaded host took 3.7 s to run true
	# (read, not `test -s`: /proc files have size 0)
	[ -n "$(cat "/proc/$mpid/task/$mpid/children" 2>/dev/null)" ] && break
	sleep 0.01
done
kill -USR2 "$mpid"
wait_for_file "$T.on" "$mpid" && kill -USR2 "$mpid"
wait "$mpid"
toggled "USR2 sent to mprof early" "$?" "$T"

# "none" in any case: no handler, so SIGUSR2 kills the program as without mprof.
for none in none NONE None; do
	RUN_NAME=none mprof_run 60 "$WORK/none-$none" --paused --toggle-signal "$none" -- "$P" signal
	expect_eq "--toggle-signal $none: killed by SIGUSR2" 140 "$RUN_STATUS"
done

# A crash under --paused (the toggle signal USR2) or a real-time toggle
# signal still kills the program by SIGSEGV, with the status it has
# without mprof.
ulimit -c 0
run_cmd 60 segv-native "$P" segv
expect_eq "segv without mprof: killed by SIGSEGV" 139 "$RUN_STATUS"
RUN_NAME=segv mprof_run 60 "$WORK/segv" --paused -- "$P" segv
expect_eq "segv under --paused: killed by SIGSEGV" 139 "$RUN_STATUS"
RUN_NAME=segv-rt mprof_run 60 "$WORK/segv-rt" --toggle-signal RTMIN+3 -- "$P" segv
expect_eq "segv under --toggle-signal RTMIN+3: killed by SIGSEGV" 139 "$RUN_STATUS"
# The shim keeps the launcher's rule when a program sets the variable for
# the programs it executes: 11 toggles nothing, and a diagnostic says so.
RUN_NAME=segv-env mprof_run 20 "$WORK/segv-env" -- env MPROF_TOGGLE_SIGNAL=11 "$P" segv
expect_eq "segv under MPROF_TOGGLE_SIGNAL=11 set by hand: killed by SIGSEGV" 139 "$RUN_STATUS"
# (env's trace is segv-env, the program it executed has segv-env.PID)
if report_json "$WORK/segv-exec.json" "$WORK"/segv-env.[0-9]*; then
	expect_match "MPROF_TOGGLE_SIGNAL=11: the diagnostic" \
		"the toggle signal is not USR1, USR2 or a real-time signal" \
		"$(q "$WORK/segv-exec.json" summary diagnostics)"
fi
# a number past the last signal is refused too, not taken for SIGRTMAX
RUN_NAME=env-1000 mprof_run 20 "$WORK/env-1000" -- env MPROF_TOGGLE_SIGNAL=1000 "$P" segv
expect_eq "MPROF_TOGGLE_SIGNAL=1000 set by hand: killed by SIGSEGV" 139 "$RUN_STATUS"
if report_json "$WORK/env-1000.json" "$WORK"/env-1000.[0-9]*; then
	expect_match "MPROF_TOGGLE_SIGNAL=1000: the diagnostic" \
		"the toggle signal is not USR1, USR2 or a real-time signal" \
		"$(q "$WORK/env-1000.json" summary diagnostics)"
fi

# A signal the program ignores from its start stays ignored: nothing is
# toggled, and a diagnostic says why.
RUN_NAME=ignored run_cmd 60 ignored bash -c 'trap "" USR2; exec "$0" "$@"' \
	"$MPROF" run -o "$WORK/ignored" --paused -- "$P" signal
expect_eq "ignored signal: exit status" 0 "$RUN_STATUS"
if report_json "$WORK/ignored.json" "$WORK/ignored"; then
	expect_eq "ignored signal: nothing recorded" 0 "$(q "$WORK/ignored.json" summary allocations)"
	expect_match "ignored signal: the diagnostic" \
		"already handles or ignores the toggle signal" \
		"$(q "$WORK/ignored.json" summary diagnostics)"
fi

# The program's own handler keeps the signal: nothing is toggled.
run_cmd 60 own-native "$P" own-handler
RUN_NAME=own mprof_run 60 "$WORK/own" --paused -- "$P" own-handler
expect_eq "own handler: exit status" 0 "$RUN_STATUS"
expect_file_eq "own handler: stdout as without mprof" "$WORK/own-native.out" "$WORK/own.out"
expect_eq "own handler: handled 3" "handled 3" "$(head -n 1 "$WORK/own.out")"
report_json "$WORK/own.json" "$WORK/own" &&
	expect_eq "own handler: nothing recorded" 0 "$(q "$WORK/own.json" summary allocations)"

# --- the API without mprof, and with it ---
run_cmd 60 api-native "$P" api
expect_eq "api without mprof" "start -38 running 0 marker -38 stop -38 running 0
control_race api done" "$(cat "$RUN_OUT")"
RUN_NAME=api mprof_run 60 "$WORK/api" --paused -- "$P" api
expect_eq "api under mprof" "start 0 running 1 marker 0 stop 0 running 0
control_race api done" "$(cat "$RUN_OUT")"
run_cmd 60 script-native "$P" script every stop 1 stop
expect_eq "script without mprof: exit status" 0 "$RUN_STATUS"
expect_eq "script without mprof: stdout" "control_race script done" "$(cat "$RUN_OUT")"

# --- bad values ---
# Only USR1, USR2 and SIGRTMIN..SIGRTMAX toggle: a caught fault's signal
# would hang a crashing program on its faulting instruction, the others
# mean something already (32 and 33 are the C library's own).
for sig in SEGV SIGFPE bus ILL ABRT TRAP SYS KILL STOP CHLD CONT WINCH PIPE ALRM HUP URG \
	TERM 11 32 33 0 $((RTMAX_N + 1)) RTMIN-1 RTMAX+1 "RTMIN+$((RTMAX_N - RTMIN_N + 1))" \
	"RTMAX-$((RTMAX_N - RTMIN_N + 1))" RTMIN+ RTMIN+x USR3 ""; do
	rm -f "$WORK/bad"
	RUN_NAME=bad mprof_run 60 "$WORK/bad" --toggle-signal "$sig" -- "$P" api
	expect_eq "--toggle-signal '$sig' refused" 2 "$RUN_STATUS"
	expect_eq "--toggle-signal '$sig': one line" "mprof: run: --toggle-signal wants USR1, USR2, \
a real-time signal (RTMIN+N, RTMAX-N, $RTMIN_N..$RTMAX_N) or 'none', not '$sig' (see '$MPROF_HINT \
run --help')" "$(cat "$RUN_ERR")"
	expect_eq "--toggle-signal '$sig': the program did not run" "" "$(cat "$RUN_OUT")"
done
finish
