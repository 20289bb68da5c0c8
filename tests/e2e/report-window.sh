#!/bin/bash
# report-window.sh - `mprof report --from/--to` restricts the report to the
# allocations made in a time window (and the frees of those blocks; frees
# made from its start of blocks allocated outside it are counted apart, not
# as unmatched), and
# `--at T` reports the heap live at T; times in seconds, ms and percent of
# the run; bad values give one line and exit status 2.
# Program and facts: tests/progs/phases.c, run with 1 s between its phases
# (phase 1 at about 0 s, phase 2 at 1 s, phase 3 at 2 s), so that a window
# from 0.5 s to 1.5 s holds phase 2 alone however the machine is loaded
# (sleeps only grow).
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/phases" "$PROGS_DIR/phases.c"

mprof_run 60 "$WORK/trace" -- "$WORK/phases" 1000
expect_eq "exit status" 0 "$RUN_STATUS"
expect_eq "stdout" "phases done" "$(cat "$RUN_OUT")"

# the whole run, for reference
report_json "$WORK/all.json" "$WORK/trace"
expect_eq "whole run: allocations" 190 "$(q "$WORK/all.json" summary allocations)"
expect_eq "whole run: leaked bytes" 160000 "$(q "$WORK/all.json" summary leaked_bytes)"
expect_eq "whole run: no window key" "no" \
	"$(q "$WORK/all.json" get window >/dev/null 2>&1 && echo yes || echo no)"

# ---- phase 2 alone: --from 500ms --to 1500ms ----
P2="$WORK/p2.json"
report_json "$P2" "$WORK/trace" --from 500ms --to 1500ms
expect_eq "phase 2: allocations" 60 "$(q "$P2" summary allocations)"
expect_eq "phase 2: allocated bytes" 120000 "$(q "$P2" summary allocated_bytes)"
expect_eq "phase 2: frees (of its blocks, in phases 2 and 3)" 30 "$(q "$P2" summary frees)"
expect_eq "phase 2: unmatched frees" 0 "$(q "$P2" summary unmatched_frees)"
# from 500 ms on: 10 of phase 1's blocks freed in phase 2, and phase 3's
# own 10 (allocated after the window)
expect_eq "phase 2: frees of blocks allocated outside it" 20 "$(q "$P2" get window.frees_outside)"
expect_eq "phase 2: window from_ns" 500000000 "$(q "$P2" get window.from_ns)"
expect_eq "phase 2: window to_ns" 1500000000 "$(q "$P2" get window.to_ns)"
expect_eq "phase 2: peak bytes" 120000 "$(q "$P2" summary peak.bytes)"
expect_eq "phase 2: peak blocks" 60 "$(q "$P2" summary peak.blocks)"
expect_eq "phase 2: leaked bytes (still live at exit)" 60000 "$(q "$P2" summary leaked_bytes)"
expect_eq "phase 2: leaked blocks" 30 "$(q "$P2" summary leaked_blocks)"
expect_site "$P2" phase_two 60 120000 30 60000
expect_eq "phase 2: no site of phase 1" 0 "$(q "$P2" sites phase_one)"
expect_eq "phase 2: no site of phase 3" 0 "$(q "$P2" sites phase_three)"

# the same in seconds and in percent of the run (about 2 s: 25% and 75%
# fall in the gaps)
run_cmd 60 p2s "$MPROF" report "$WORK/trace" --from 0.5 --to 1.5s -n 0
expect_eq "seconds: exit status" 0 "$RUN_STATUS"
expect_match "seconds: phase 2's allocations" '^allocations:      60, 120000 B ' \
	"$(cat "$RUN_OUT")"
expect_match "seconds: the header says so" \
	'^window:           the allocations made from 500.00 ms to 1.500 s into the recording \(--from 0.5 --to 1.5s\) and their frees; 20 frees of blocks allocated outside it left out \(not unmatched\)$' \
	"$(cat "$RUN_OUT")"
expect_eq "seconds: a window inside the run has no note" "" "$(grep '^note: .*after the run' "$RUN_OUT")"
# a time after the run's end (seconds meant as ms): the report said nothing
# and looked like a program that allocated nothing; a note says so now
run_cmd 60 late "$MPROF" report "$WORK/trace" --from 500 -n 0
expect_eq "--from after the end: exit status" 0 "$RUN_STATUS"
expect_match "--from after the end: allocations 0" '^allocations:      0, 0 B' "$(cat "$RUN_OUT")"
expect_match "--from after the end: a note says the window is empty" \
	"^note:             --from 500 is after the run's end \(run time [0-9.]+ m?s\): the window is empty\$" \
	"$(cat "$RUN_OUT")"
run_cmd 60 late-at "$MPROF" report "$WORK/trace" --at 1000s -n 0
expect_match "--at after the end: a note says T is the end" \
	"^note:             --at 1000s is after the run's end \(run time [0-9.]+ m?s\): the heap at T is the heap at the end\$" \
	"$(cat "$RUN_OUT")"
report_json "$WORK/p2pct.json" "$WORK/trace" --from 25% --to 75%
expect_eq "percent: allocations" 60 "$(q "$WORK/p2pct.json" summary allocations)"
expect_eq "percent: leaked bytes" 60000 "$(q "$WORK/p2pct.json" summary leaked_bytes)"

# ---- open ends: phase 1 (--to), phase 3 (--from) ----
P1="$WORK/p1.json"
report_json "$P1" "$WORK/trace" --to 500ms
expect_eq "phase 1: allocations" 100 "$(q "$P1" summary allocations)"
expect_eq "phase 1: frees (50 in phase 1, 10 in phase 2)" 60 "$(q "$P1" summary frees)"
expect_eq "phase 1: leaked" "40 40000" \
	"$(q "$P1" summary leaked_blocks) $(q "$P1" summary leaked_bytes)"
expect_eq "phase 1: frees outside" 40 "$(q "$P1" get window.frees_outside)"
expect_eq "phase 1: window from 0, open to_ns given" "0 500000000" \
	"$(q "$P1" get window.from_ns) $(q "$P1" get window.to_ns)"
P3="$WORK/p3.json"
report_json "$P3" "$WORK/trace" --from 1500ms
expect_eq "phase 3: allocations" 30 "$(q "$P3" summary allocations)"
expect_eq "phase 3: frees" 10 "$(q "$P3" summary frees)"
expect_eq "phase 3: leaked" "20 60000" \
	"$(q "$P3" summary leaked_blocks) $(q "$P3" summary leaked_bytes)"
# (from 1.5 s on: 10 of phase 2's blocks)
expect_eq "phase 3: frees outside" 10 "$(q "$P3" get window.frees_outside)"
expect_eq "phase 3: open end" "null" "$(q "$P3" get window.to_ns)"
expect_eq "phase 3: unmatched frees" 0 "$(q "$P3" summary unmatched_frees)"

# ---- the heap at a moment ----
AT="$WORK/at.json"
report_json "$AT" "$WORK/trace" --at 1.5
expect_eq "at 1.5 s: allocations before T" 160 "$(q "$AT" summary allocations)"
expect_eq "at 1.5 s: events before T" 240 "$(q "$AT" summary events)"
expect_eq "at 1.5 s: live at T" "80 120000" \
	"$(q "$AT" summary leaked_blocks) $(q "$AT" summary leaked_bytes)"
expect_eq "at 1.5 s: at_ns" 1500000000 "$(q "$AT" get window.at_ns)"
expect_site "$AT" phase_one 100 100000 40 40000
expect_site "$AT" phase_two 60 120000 40 80000
expect_eq "at 1.5 s: no site of phase 3" 0 "$(q "$AT" sites phase_three)"
run_cmd 60 at "$MPROF" report "$WORK/trace" --at 1500ms -n 1
expect_eq "at (text): exit status" 0 "$RUN_STATUS"
expect_match "at (text): header" \
	'^window:           the heap at T = 1.500 s into the recording \(--at 1500ms\): the events before T; blocks live at T are not leaks$' \
	"$(cat "$RUN_OUT")"
expect_match "at (text): 'leaked' reads 'live at T'" \
	'^live at T:        120000 B \(117.2 KiB\) in 80 blocks \(T = 1.500 s into the recording\)$' \
	"$(cat "$RUN_OUT")"
expect_match "at (text): the ranking" '^== Live at T: top 1 of 2 sites$' "$(cat "$RUN_OUT")"
expect_no_match "at (text): no 'leaked'" '^leaked:' "$(cat "$RUN_OUT")"
report_json "$WORK/at25.json" "$WORK/trace" --at 25%
expect_eq "at 25%: live at T (phase 1's)" "50 50000" \
	"$(q "$WORK/at25.json" summary leaked_blocks) $(q "$WORK/at25.json" summary leaked_bytes)"
expect_eq "at 25%: allocations" 100 "$(q "$WORK/at25.json" summary allocations)"

# ---- bad values: one line, exit status 2 ----
bad() {
	local what=$1
	shift
	run_cmd 60 bad "$MPROF" report "$WORK/trace" "$@"
	expect_eq "$what: exit status" 2 "$RUN_STATUS"
	expect_eq "$what: one line on stderr" 1 "$(wc -l <"$RUN_ERR")"
	expect_eq "$what: nothing on stdout" "" "$(cat "$RUN_OUT")"
}
bad "--from after --to" --from 2s --to 1s
bad "--from equal to --to" --from 1500ms --to 1.5
bad "--from after --to, percent" --from 60% --to 50%
bad "--from after --to, mixed units" --from 90% --to 100ms
bad "--to at the start" --to 0
expect_eq "--to at the start: the line names no --from" \
	"mprof: report: --to 0 is not after the recording's start: the window is empty" \
	"$(cat "$RUN_ERR")"
bad "negative" --at -1
bad "garbage" --from abc
bad "unknown unit" --to 3min
bad "over 100%" --at 101%
bad "empty" --at ''
bad "--at with --from" --from 1s --at 2s
run_cmd 60 bad "$MPROF" report "$WORK/trace" --at 1s --from
expect_eq "missing argument: exit status" 2 "$RUN_STATUS"
expect_match "bad value: the message" \
	"^mprof: report: --from wants a time from the start of the recording \(2.5 or 2.5s, 300ms, 50%\) or a marker \(marker:NAME, marker:NAME#2\), not 'abc'$" \
	"$("$MPROF" report "$WORK/trace" --from abc 2>&1)"
run_cmd 60 diffw "$MPROF" diff "$WORK/trace" "$WORK/trace" --at 1s
expect_eq "diff does not take --at" 2 "$RUN_STATUS"
expect_match "diff: says so, in one line" "^mprof: diff: unknown option '--at' \(see '$MPROF_HINT diff --help'\)\$" \
	"$(cat "$RUN_ERR")"
finish
