#!/bin/bash
# report-massif.sh - the heap timeline, the launcher's RSS samples and
# `mprof report --format massif`: a program whose heap goes up and down in
# known steps with pauses (tests/progs/heap_phases.c) shows those steps in
# the JSON report's "timeline" and in the massif file's snapshots, the peak
# snapshot and its tree equal the JSON report's peak and per-site peak
# bytes, RSS samples are there and at least the heap while it stands, and
# Debian's ms_print and massif-visualizer read the file and find our peak;
# the report page's chart draws the timeline (where chromium is installed).
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/heap_phases" "$PROGS_DIR/heap_phases.c"
M="$PYTHON $E2E_DIR/massif.py"
MIB=1048576
H1=$((8 * MIB + 3000))
H2=$((24 * MIB + 3000))

mprof_run 120 "$WORK/trace" -- "$WORK/heap_phases"
expect_eq "exit status" 0 "$RUN_STATUS"
report_json "$WORK/r.json" "$WORK/trace"
R="$WORK/r.json"
expect_eq "1. peak (JSON)" "$H2" "$(q "$R" get summary.peak.bytes)"
expect_eq "1. leaked (JSON)" "$H1" "$(q "$R" get summary.leaked_bytes)"

# 2. The timeline: the steps, in order, the peak exact, bounded.
tl() {
	"$PYTHON" - "$R" "$@" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); t = r["timeline"]; pts = t["points"]
peak = r["summary"]["peak"]; what = sys.argv[2]
top = max(p["heap_bytes"] for p in pts)
first_top = [p for p in pts if p["heap_bytes"] == top][0]
if what == "peak":      # the first highest point: bytes, blocks, seq, time
    print(first_top["heap_bytes"], first_top["heap_blocks"], first_top["seq"] == peak["seq"],
          first_top["time_ns"] == peak["time_ns"])
elif what == "levels":  # the heap levels in time order, repeats dropped
    out = []
    for p in pts:
        if not out or out[-1] != p["heap_bytes"]:
            out.append(p["heap_bytes"])
    print(" ".join(str(v) for v in out if v in (int(sys.argv[3]), int(sys.argv[4]))))
elif what == "gaps":    # ms from the last H1 point before the peak to it, and
    h1 = int(sys.argv[3])  # from the peak to the end state
    before = [p for p in pts if p["heap_bytes"] == h1 and p["time_ns"] < peak["time_ns"]]
    print(round((peak["time_ns"] - before[-1]["time_ns"]) / 1e6) >= 350 if before else "none",
          round((pts[-1]["time_ns"] - peak["time_ns"]) / 1e6) >= 350)
elif what == "end":
    print(pts[-1]["heap_bytes"], pts[-1]["heap_blocks"])
elif what == "sorted":
    print(all(a["time_ns"] <= b["time_ns"] for a, b in zip(pts, pts[1:])), len(pts) <= 1025)
elif what == "rss":     # samples; then the lowest while H2 stood (in the 1.5 s
    # slept after the peak, 0.5 s short of its end: on a loaded host the frees
    # took 0.1 s, and a launcher run late took no sample in a 300 ms window),
    # the lowest and highest after it fell back to H1
    rss = t["rss"]
    end = pts[-1]["time_ns"]
    pk = peak["time_ns"]
    during = [s["rss_bytes"] for s in rss if pk + 50e6 <= s["time_ns"] <= pk + 1000e6]
    after = [s["rss_bytes"] for s in rss if s["time_ns"] >= end + 50e6]
    print(len(rss) >= 14, min(during) if during else "none",
          min(after) if after else "none", max(after) if after else "none")
PY
}
expect_eq "2. the first highest point is t-gmax (bytes, blocks, seq, time)" \
	"$H2 27 True True" "$(tl peak)"
expect_eq "2. heap levels in order: H1, H2, H1" "$H1 $H2 $H1" "$(tl levels $H1 $H2)"
expect_eq "2. the pauses between the steps (>= 350 ms)" "True True" "$(tl gaps $H1)"
expect_eq "2. points in time order, at most 1025" "True True" "$(tl sorted)"
expect_eq "2. the end point is the state at exit" "$H1 11" "$(tl end)"
read -r rss_many rss_during rss_after_min rss_after_max <<<"$(tl rss)"
expect_eq "3. RSS samples (>= 14 over 2.9 s: half the launcher's rate)" True "$rss_many"
expect_range "3. RSS while the peak stood >= the heap" "$H2" $((H2 + 64 * MIB)) "$rss_during"
expect_range "3. RSS after the frees >= the heap" "$H1" $((H2 - 1)) "$rss_after_min"
expect_range "3. ... and below the peak's heap (mmapped blocks went back)" "$H1" $((H2 - 1)) "$rss_after_max"

# 4. massif: well formed, the peak and its tree as in the JSON report.
run_cmd 60 massif "$MPROF" report "$WORK/trace" --format massif -o "$WORK/massif.out"
expect_eq "4. report --format massif: exit status" 0 "$RUN_STATUS"
expect_eq "4. massif file well formed (numbers, times, child counts, one peak)" ok \
	"$($M check "$WORK/massif.out")"
read -r peak_num peak_heap <<<"$($M peak "$WORK/massif.out")"
expect_eq "4. peak snapshot's mem_heap_B = the JSON report's peak" "$H2" "$peak_heap"
expect_eq "4. peak tree's top entries = JSON per-site peak bytes" \
	"$($M json-top "$R")" "$($M top "$WORK/massif.out")"
expect_match "4. grow_b's 16 MiB at the top of the peak tree" \
	"^16777216 0x[0-9a-f]+: grow_b \(.*heap_phases\.c:[0-9]+\)$" "$($M top "$WORK/massif.out")"
expect_match "4. the three 1000 B sites below massif's threshold" \
	"^3000 in 3 places, all below massif's threshold \(1\.00%\)$" "$($M top "$WORK/massif.out")"
levels=$($M snapshots "$WORK/massif.out" | tail -n +2 | awk '{print $2}' | uniq | grep -Fx -e "$H1" -e "$H2" | tr '\n' ' ')
expect_eq "4. snapshots show the steps H1, H2, H1" "$H1 $H2 $H1 " "$levels"
expect_eq "4. last snapshot: detailed (the blocks live at exit)" "$H1 detailed" \
	"$($M snapshots "$WORK/massif.out" | tail -1 | cut -d' ' -f2-)"

# 5. Debian's ms_print (valgrind) reads it and finds our peak.
if command -v ms_print >/dev/null 2>&1; then
	run_cmd 60 ms_print ms_print "$WORK/massif.out"
	expect_eq "5. ms_print exit status" 0 "$RUN_STATUS"
	expect_match "5. ms_print: the peak snapshot" "^ Detailed snapshots: \[$peak_num \(peak\)" \
		"$(cat "$RUN_OUT")"
	expect_eq "5. ms_print: the peak snapshot's total" "$H2" \
		"$(awk -v n="$peak_num" '$1 == n && NF == 6 {gsub(",", "", $3); print $3}' "$RUN_OUT")"
	# the harness sees ms_print's errors: a tree node above its snapshot
	sed "0,/^ n1: 16777216 /s// n1: 167772160 /" "$WORK/massif.out" >"$WORK/bad.out"
	run_cmd 60 ms_print-bad ms_print "$WORK/bad.out"
	expect_ne "5. ms_print refuses a node above the heap" 0 "$RUN_STATUS"
else
	echo "note: ms_print (Debian's valgrind) is not installed: its checks are skipped"
fi

# 6b. KDE's massif-visualizer (Debian's) reads it under a virtual X server
# and finds our peak: it prints what it parsed on its standard output.
if command -v massif-visualizer >/dev/null 2>&1 && command -v xvfb-run >/dev/null 2>&1; then
	cat >"$WORK/mv.sh" <<'SH'
#!/bin/bash
massif-visualizer "$1" >"$2" 2>&1 &
pid=$!
for _ in $(seq 120); do
	grep -q '^peak cost:' "$2" && break
	sleep 0.25
done
kill "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
exit 0
SH
	chmod +x "$WORK/mv.sh"
	run_cmd 90 massif-visualizer xvfb-run -a -s "-screen 0 1024x768x24" "$WORK/mv.sh" \
		"$WORK/massif.out" "$WORK/mv.out"
	expect_match "6b. massif-visualizer: the peak snapshot and time" \
		"^peak: snapshot # $peak_num after " "$(cat "$WORK/mv.out")"
	expect_match "6b. massif-visualizer: the peak's heap (24 MiB + 3000 B)" \
		'^peak cost: "24.0 MiB" heap' "$(cat "$WORK/mv.out")"
	expect_match "6b. massif-visualizer: every snapshot" \
		"^snapshots: $($M snapshots "$WORK/massif.out" | tail -n +2 | wc -l)\$" "$(cat "$WORK/mv.out")"
else
	echo "note: massif-visualizer or xvfb-run is not installed: its checks are skipped"
fi

# 6. The report page's chart of the heap over time draws the timeline: the
# heap as steps through every point, RSS through every sample, the peak.
if [ -x /usr/bin/chromium ] && command -v node >/dev/null 2>&1 &&
	[ -d "$BROWSER_DIR/node_modules/playwright-core" ]; then
	run_cmd 60 html "$MPROF" report --html "$WORK/page.html" "$WORK/trace"
	expect_eq "6. report --html: exit status" 0 "$RUN_STATUS"
	run_cmd 120 chart node "$BROWSER_DIR/heap-chart.mjs" "$WORK/page.html" "$WORK/chart.png"
	cat "$RUN_OUT"
	v() { sed -n "s/^$1=//p" "$RUN_OUT"; }
	expect_eq "6. chart: no console error, page error or network request" none "$(v problems)"
	expect_eq "6. chart: RSS and heap lines, a vertex per sample and point" \
		"$(q "$R" len timeline.rss),$(q "$R" len timeline.points)" "$(v lines)"
	expect_eq "6. chart: the peak marked" "peak 24.0 MiB" "$(v 'peak label')"
	expect_eq "6. chart: no dot where every line has points" 0 "$(v dots)"
	# a run of 0.1-0.2 s reads RSS once: that sample is a dashed level across
	# the chart (a path of one move draws nothing, and a lone dot was easy to
	# miss; html-timeline.sh checks it on a trace cut to one sample)
	RUN_NAME=short mprof_run 60 "$WORK/short" -- "$PYTHON" -c 'import time; time.sleep(0.1)'
	run_cmd 60 html-short "$MPROF" report --html "$WORK/short.html" "$WORK/short"
	report_json "$WORK/short.json" "$WORK/short"
	if [ "$(q "$WORK/short.json" len timeline.rss)" = 1 ]; then
		run_cmd 120 chart-short node "$BROWSER_DIR/heap-chart.mjs" "$WORK/short.html" \
			"$WORK/short.png"
		expect_eq "6. short run: its one RSS sample is a dashed level, no dot" "1 0" \
			"$(v 'rss once') $(v dots)"
		expect_eq "6. short run: no problem" none "$(v problems)"
	else
		echo "note: the short run read RSS $(q "$WORK/short.json" len timeline.rss) times: its dot is not checked"
	fi
	# a peak at the end of the run: its label goes left of its line (it
	# ran past the chart's right edge, cut off)
	build_c "$WORK/tree_worker" "$PROGS_DIR/tree_worker.c"
	RUN_NAME=peak-at-end mprof_run 60 "$WORK/end.trace" -- "$WORK/tree_worker" 100000
	run_cmd 60 html-end "$MPROF" report --html "$WORK/end.html" "$WORK/end.trace"
	run_cmd 120 chart-end node "$BROWSER_DIR/heap-chart.mjs" "$WORK/end.html" "$WORK/end.png"
	expect_eq "6. peak at the end: marked" "peak 1.5 MiB" "$(v 'peak label')"
	expect_eq "6. peak at the end: its label inside the chart" none "$(v 'clipped labels')"
	expect_eq "6. peak at the end: no problem" none "$(v problems)"
else
	echo "note: Debian's chromium or tests/browser's node modules are missing: the chart's checks are skipped"
fi
finish
