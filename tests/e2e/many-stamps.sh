#!/bin/bash
# many-stamps.sh - a run with more than 65,536 recording stops, starts and
# markers keeps every one: 70,000 of each (the reader kept 65,536 and
# counted the rest's sequence numbers as failed reallocs), the 70,000th
# marker bounds a window with its exact counts, and one past the last is
# "no marker" naming the trace's markers and their counts.  An empty
# marker name is refused (-EINVAL) and writes nothing.
# Program and facts: tests/progs/sample_seeds.c (toggles).
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/sample_seeds" "$PROGS_DIR/sample_seeds.c" -I"$abs_top_srcdir/include"

mprof_run 120 "$WORK/t" -- "$WORK/sample_seeds" toggles 70000
expect_eq "exit status" 0 "$RUN_STATUS"
expect_eq "stdout" "toggles 70000
empty: -22" "$(cat "$RUN_OUT")"
report_json "$WORK/t.json" "$WORK/t"
R="$WORK/t.json"
expect_eq "stops" 70000 "$(q "$R" get summary.recording.stops)"
expect_eq "starts" 70000 "$(q "$R" get summary.recording.starts)"
expect_eq "changes listed" 140000 "$("$PYTHON" -c 'import json, sys
print(len(json.load(open(sys.argv[1]))["summary"]["recording"]["changes"]))' "$R")"
expect_eq "markers listed (the empty one refused)" 70001 "$("$PYTHON" -c 'import json, sys
print(len(json.load(open(sys.argv[1]))["timeline"]["markers"]))' "$R")"
expect_eq "no failed reallocs" 0 "$(q "$R" summary failed_reallocs)"
TEXT=$("$MPROF" report -n 0 "$WORK/t" 2>&1)
expect_match "text: stops and starts" \
	'^recorded: .*\(paused .*: 70000 stops, 70000 starts\)' "$TEXT"
expect_match "text: markers" '^                  and 69981 more \(--format json lists them all\)$' \
	"$TEXT"
expect_no_match "text: nothing dropped" '^warning: ' "$TEXT"
expect_no_match "text: no failed realloc" 'failed realloc' "$TEXT"

# the one block between the 69,999th and the 70,000th marker
report_json "$WORK/w.json" "$WORK/t" --from 'marker:m#69999' --to 'marker:m#70000'
expect_eq "window m#69999..m#70000: allocations" 1 "$(q "$WORK/w.json" summary allocations)"
expect_eq "window m#69999..m#70000: bytes" 777 "$(q "$WORK/w.json" summary allocated_bytes)"
"$MPROF" report -n 0 --from 'marker:m#70001' "$WORK/t" >"$WORK/none.out" 2>"$WORK/none.err"
expect_eq "m#70001: exit status" 2 "$?"
expect_eq "m#70001: the reason" "mprof: $WORK/t: no marker marker:m#70001 in the trace (its \
markers: m (70000 times), last)" "$(cat "$WORK/none.err")"
finish
