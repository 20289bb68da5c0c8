#!/bin/bash
# markers-pause-pool.sh - what reports make of the records of trace minor 2:
# named markers (on the timeline, in the text and JSON reports, and as
# --from/--to/--at marker:NAME[#N] with exact counts; an unknown one is one
# line naming the trace's markers), recording stopped and started ("recorded
# X of Y (paused Z)", estimates where any stretch was sampled), and pool
# annotations (an entry point of their own, an address space of their own,
# their part of the totals said); a CONTROL record timed before the one
# before it never makes a stretch that runs backwards.  The traces are synthetic, written by
# tests/unit/write_trace (its comments list each trace's facts), so that the
# counts are exact whatever the recorder does.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
WRITE="$abs_top_builddir/tests/unit/write_trace"
[ -x "$WRITE" ] || hard_error "$WRITE is not built (make check builds it)"
for kind in markers paused asked pool; do
	"$WRITE" "$kind" "$WORK/$kind.trace" || hard_error "write_trace $kind failed"
done

# ---- markers: two threads, in sequence order ----
M="$WORK/markers.json"
report_json "$M" "$WORK/markers.trace"
expect_eq "markers: four, in sequence order" "start phase phase end" \
	"$(for i in 0 1 2 3; do q "$M" get timeline.markers.$i.name; done | tr '\n' ' ' | sed 's/ $//')"
expect_eq "markers: their sequence numbers" "3 6 9 12" \
	"$(for i in 0 1 2 3; do q "$M" get timeline.markers.$i.seq; done | tr '\n' ' ' | sed 's/ $//')"
expect_eq "markers: their threads" "101 102 101 102" \
	"$(for i in 0 1 2 3; do q "$M" get timeline.markers.$i.tid; done | tr '\n' ' ' | sed 's/ $//')"
expect_eq "markers: time of the second phase" 600000000 "$(q "$M" get timeline.markers.2.time_ns)"
expect_eq "markers: their SEQ_SKIPs are no failed reallocs" 0 "$(q "$M" summary failed_reallocs)"
expect_eq "markers: allocator events" 9 "$(q "$M" summary events)"
expect_eq "markers: allocations" 7 "$(q "$M" summary allocations)"
expect_eq "markers: no recording key" "no" \
	"$(q "$M" summary recording >/dev/null 2>&1 && echo yes || echo no)"
expect_eq "markers: no pool calls" "no" \
	"$(q "$M" summary calls.pool >/dev/null 2>&1 && echo yes || echo no)"
TEXT=$("$MPROF" report "$WORK/markers.trace" -n 0 2>&1)
expect_match "text: markers listed" "^markers:          start at 100.00 ms \(event 3\)$" "$TEXT"
expect_match "text: the last marker" "^                  end at 900.00 ms \(event 12\)$" "$TEXT"

# ---- windows bounded by markers: exact counts ----
# window LABEL ALLOCATIONS BYTES FREES FREES_OUTSIDE LEAKED_BYTES ARGS...
window() {
	local label=$1 allocs=$2 bytes=$3 frees=$4 outside=$5 leaked=$6 out="$WORK/w$RANDOM.json"
	shift 6
	report_json "$out" "$WORK/markers.trace" "$@" || return
	expect_eq "$label: allocations" "$allocs" "$(q "$out" summary allocations)"
	expect_eq "$label: allocated bytes" "$bytes" "$(q "$out" summary allocated_bytes)"
	expect_eq "$label: frees" "$frees" "$(q "$out" summary frees)"
	expect_eq "$label: frees outside" "$outside" "$(q "$out" get window.frees_outside)"
	expect_eq "$label: leaked bytes" "$leaked" "$(q "$out" summary leaked_bytes)"
	LAST_WINDOW=$out
}
window "start to end" 4 1800 1 1 1400 --from marker:start --to marker:end
expect_eq "start to end: from_ns is the marker's" 100000000 "$(q "$LAST_WINDOW" get window.from_ns)"
expect_eq "start to end: to_ns is the marker's" 900000000 "$(q "$LAST_WINDOW" get window.to_ns)"
# the peak is B4 (seq 10), after marker phase#2 (600 ms): its time is no
# earlier than the marker's, though its thread's newest stamp says 450 ms
expect_eq "start to end: the peak's time is bounded by the marker before it" 600000000 \
	"$(q "$LAST_WINDOW" summary peak.time_ns)"
window "phase to phase#2" 1 500 0 2 500 --from marker:phase --to marker:phase#2
# (frees outside: those from the range's start on; free A1 at seq 7 is
# before phase#2 and is left out with the other events before it)
window "from phase#2" 2 1300 0 1 1300 --from marker:phase#2
window "to start" 2 300 1 1 200 --to marker:start
# (times: an event is timed by the newest TIME stamp before it in the merged
# order, which may be another thread's earlier one: 420 ms falls between the
# stamps that time B3 and B4 either way)
window "start to 420ms" 3 1200 1 1 800 --from marker:start --to 420ms
# windows that split the run at its markers split its events too: each
# counts its allocations and their frees, not the events it left out
parts=""
for w in "--to marker:start" "--from marker:start --to marker:phase" \
	"--from marker:phase --to marker:phase#2" "--from marker:phase#2 --to marker:end" \
	"--from marker:end"; do
	# shellcheck disable=SC2086
	report_json "$WORK/part.json" "$WORK/markers.trace" $w || break
	parts="$parts $(q "$WORK/part.json" summary events)"
done
expect_eq "windows split at the markers: their events" " 3 3 1 1 1" "$parts"
report_json "$WORK/at.json" "$WORK/markers.trace" --at marker:phase#2
expect_eq "at phase#2: allocations before it" 5 "$(q "$WORK/at.json" summary allocations)"
expect_eq "at phase#2: live bytes" 1400 "$(q "$WORK/at.json" summary leaked_bytes)"
expect_eq "at phase#2: live blocks" 4 "$(q "$WORK/at.json" summary leaked_blocks)"
expect_eq "at phase#2: at_ns" 600000000 "$(q "$WORK/at.json" get window.at_ns)"

# ---- markers that are not there, and ends out of order ----
run_cmd 60 unknown "$MPROF" report "$WORK/markers.trace" --from marker:nope
expect_eq "unknown marker: exit status" 2 "$RUN_STATUS"
expect_eq "unknown marker: nothing on stdout" "" "$(cat "$RUN_OUT")"
expect_eq "unknown marker: one line" 1 "$(wc -l <"$RUN_ERR")"
expect_match "unknown marker: names the trace's markers" \
	"no marker marker:nope in the trace \(its markers: start, phase \(2 times\), end\)$" \
	"$(cat "$RUN_ERR")"
run_cmd 60 third "$MPROF" report "$WORK/markers.trace" --to marker:phase#3
expect_eq "a third phase: exit status" 2 "$RUN_STATUS"
run_cmd 60 none "$MPROF" report "$WORK/pool.trace" --from marker:start
expect_match "a trace without markers says so" "no marker marker:start in the trace \(it has no markers\)$" \
	"$(cat "$RUN_ERR")"
run_cmd 60 order "$MPROF" report "$WORK/markers.trace" --from marker:end --to marker:start
expect_eq "end before start: exit status" 2 "$RUN_STATUS"
expect_match "end before start: says so" "--from marker:end is not before --to marker:start$" \
	"$(cat "$RUN_ERR")"
for bad in "marker:" "marker:x#0"; do
	run_cmd 60 bad "$MPROF" report "$WORK/markers.trace" --from "$bad"
	expect_eq "--from $bad: exit status" 2 "$RUN_STATUS"
done

# ---- recording stopped and started ----
P="$WORK/paused.json"
report_json "$P" "$WORK/paused.trace"
expect_eq "paused: started paused" "true" "$(q "$P" summary recording.paused_at_start)"
expect_eq "paused: recorded ns" 2100000000 "$(q "$P" summary recording.recorded_ns)"
expect_eq "paused: paused ns" 2900000000 "$(q "$P" summary recording.paused_ns)"
expect_eq "paused: stops" 2 "$(q "$P" summary recording.stops)"
expect_eq "paused: the sampled stretch's rate" 65536 "$(q "$P" summary recording.sample_rate_max_bytes)"
expect_eq "paused: partly exact" "true" "$(q "$P" summary recording.partly_exact)"
expect_eq "paused: second change" "stopped" "$(q "$P" get summary.recording.changes.1.state)"
expect_eq "paused: estimates (a stretch was sampled)" "true" "$(q "$P" summary sampled)"
expect_eq "paused: each sample keeps its weight" 11 "$(q "$P" summary allocations)"
expect_eq "paused: bytes" 2000 "$(q "$P" summary allocated_bytes)"
expect_eq "paused: CONTROL SEQ_SKIPs are no failed reallocs" 0 "$(q "$P" summary failed_reallocs_recorded)"
TEXT=$("$MPROF" report "$WORK/paused.trace" -n 0 2>&1)
PAUSED_KIND=$(printf '%s\n' "$TEXT" | sed -n 's/^mprof report: [^ ]*paused\.trace (\(.*\))$/\1/p')
expect_match "paused text: estimated in the header" \
	"^mprof report: .*paused.trace \(estimated, sample rate 65536 B \(64.0 KiB\), parts exact: " "$TEXT"
expect_match "paused text: recorded of the run" \
	"^recorded:         2.100 s of 5.000 s \(paused 2.900 s: started paused, 2 stops, 2 starts\)" "$TEXT"

# ---- toggles timed when they were asked ----
# A stop timed before an event that precedes it (another thread was
# mid-call), and a stop timed before the start before it, taken at the
# start's time: never a stretch that runs backwards.
A="$WORK/asked.json"
if report_json "$A" "$WORK/asked.trace"; then
	expect_eq "asked: allocations, the one timed after the stop too" 2 "$(q "$A" summary allocations)"
	expect_eq "asked: bytes" 3000 "$(q "$A" summary allocated_bytes)"
	expect_eq "asked: recorded ns" 1000000000 "$(q "$A" summary recording.recorded_ns)"
	expect_eq "asked: paused ns" 4000000000 "$(q "$A" summary recording.paused_ns)"
	expect_eq "asked: stops and starts" "2 2" \
		"$(q "$A" summary recording.stops) $(q "$A" summary recording.starts)"
	expect_eq "asked: the changes' times, in order" \
		"1000000000 2000000000 3500000000 3500000000" \
		"$(for i in 0 1 2 3; do q "$A" get summary.recording.changes.$i.time_ns; done |
			tr '\n' ' ' | sed 's/ $//')"
	expect_match "asked text: recorded of the run" \
		"^recorded:         1.000 s of 5.000 s \(paused 4.000 s: started paused, 2 stops, 2 starts\)" \
		"$("$MPROF" report "$WORK/asked.trace" -n 0 2>&1)"
fi

# ---- pool blocks ----
L="$WORK/pool.json"
report_json "$L" "$WORK/pool.trace"
expect_eq "pool: allocations, all kinds" 4 "$(q "$L" summary allocations)"
expect_eq "pool: bytes, all kinds" 4544 "$(q "$L" summary allocated_bytes)"
expect_eq "pool: calls of pool" 2 "$(q "$L" summary calls.pool)"
expect_eq "pool: calls of pool_realloc" 1 "$(q "$L" summary calls.pool_realloc)"
expect_eq "pool: calls of pool_free" 1 "$(q "$L" summary calls.pool_free)"
expect_eq "pool: malloc calls" 1 "$(q "$L" summary calls.malloc)"
expect_eq "pool: a block at the arena's address is no reuse" 0 "$(q "$L" get summary.quality.address_reused)"
expect_eq "pool: no unmatched frees" 0 "$(q "$L" summary unmatched_frees)"
expect_eq "pool: pool allocations" 3 "$(q "$L" summary pool.allocations)"
expect_eq "pool: pool bytes" 448 "$(q "$L" summary pool.allocated_bytes)"
expect_eq "pool: pool bytes at the peak" 256 "$(q "$L" summary pool.peak_bytes)"
expect_eq "pool: peak" 4352 "$(q "$L" summary peak.bytes)"
expect_eq "pool: pool bytes leaked" 256 "$(q "$L" summary pool.leaked_bytes)"
expect_eq "pool: leaked" 4352 "$(q "$L" summary leaked_bytes)"
TEXT=$("$MPROF" report "$WORK/pool.trace" -n 0 2>&1)
expect_match "pool text: calls" "^calls:            malloc 1, pool 2, pool_realloc 1, pool_free 1$" "$TEXT"
expect_match "pool text: counted twice, said" \
	"^pool blocks:      3 allocations, 448 B requested, 256 B at the peak, 256 B in 1 block leaked: .*counted twice$" \
	"$TEXT"

# ---- mprof diff says what a side did not record, and its pool bytes ----
"$MPROF" diff --force "$WORK/paused.trace" "$WORK/pool.trace" >"$WORK/diff.txt" 2>&1
expect_match "diff: a paused side's recorded time" \
	"^note: A recorded 2.100 s of 5.000 s \(paused 2.900 s\): what it allocated while paused is not counted$" \
	"$(cat "$WORK/diff.txt")"
expect_match "diff: a paused, partly sampled side is estimated" "^note: A is estimated, sample rate 65536 B" \
	"$(cat "$WORK/diff.txt")"
expect_match "diff: pool bytes" "^note: B has 448 B in pool blocks \(mprof.h\), counted also in" \
	"$(cat "$WORK/diff.txt")"

# ---- the page's chart draws the markers and the stretches not recorded ----
if [ -x /usr/bin/chromium ] && command -v node >/dev/null 2>&1 &&
	[ -d "$BROWSER_DIR/node_modules/playwright-core" ]; then
	for kind in markers paused; do
		run_cmd 60 html "$MPROF" report --html "$WORK/$kind.html" "$WORK/$kind.trace"
		run_cmd 120 chart node "$BROWSER_DIR/heap-chart.mjs" "$WORK/$kind.html" "$WORK/$kind.png"
		eval "CHART_$kind=\$(cat \"\$RUN_OUT\")"
	done
	v() { printf '%s\n' "$1" | sed -n "s/^$2=//p"; }
	expect_eq "chart: no problems" none "$(v "$CHART_markers" problems)"
	expect_eq "chart: the four markers" "start,phase,phase,end" "$(v "$CHART_markers" markers)"
	expect_eq "chart: the peak's and markers' labels inside the chart" none \
		"$(v "$CHART_markers" 'clipped labels')"
	expect_eq "chart: nothing shaded in a run recorded throughout" 0 "$(v "$CHART_markers" paused)"
	expect_eq "chart, paused run: no problems" none "$(v "$CHART_paused" problems)"
	expect_eq "chart, paused run: its marker" mid "$(v "$CHART_paused" markers)"
	expect_eq "chart, paused run: three stretches not recorded" 3 "$(v "$CHART_paused" paused)"
	expect_match "page, paused run: how much was recorded, as the text says" \
		"^Recorded 2\.10 s of 5\.00 s \(paused 2\.90 s: started paused, 2 stops, 2 starts\); nothing is counted while paused" \
		"$(v "$CHART_paused" notes)"
	expect_eq "page, paused run: the header's kind, as the text report's" \
		"$PAUSED_KIND" "$(v "$CHART_paused" kind)"
	expect_match "page, paused run: parts of it exact" ', parts exact: ' "$(v "$CHART_paused" kind)"
	expect_eq "page, run recorded throughout: no such note" "" \
		"$(v "$CHART_markers" notes | grep -o 'Recorded [^|]*')"
else
	echo "note: Debian's chromium or tests/browser's node modules are missing: the chart's checks are skipped"
fi
finish
