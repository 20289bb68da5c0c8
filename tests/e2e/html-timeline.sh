#!/bin/bash
# html-timeline.sh - the report page's chart of the heap over time writes
# bytes as the text report does (one decimal: "1.5 MiB", where the page
# wrote "1.53 MiB" and the text report "1.5 MiB"), in its axis, its peak
# label and the page's cards, and draws RSS read once (a run shorter than
# the launcher's 100 ms period) as a dashed level across the chart, named
# in the legend with its figure, not as a lone dot.  The trace of one RSS
# sample is the real one with its RSS chunks cut to the first sample
# (tests/e2e/trace_craft.py), so it does not depend on the launcher's timing.
# The time axis counts from the recording's start (the demo's peak under
# its line at the report's time).  Programs: one block of 1,600,000 B
# (1.5 MiB) held 300 ms; examples/demo.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
require_browser
make_work
cat >"$WORK/hold.c" <<'PROG'
#include <stdlib.h>
#include <time.h>
int main(void)
{
	struct timespec nap = { 0, 300 * 1000000 };
	char *volatile p = malloc(1600000);
	p[0] = 1;
	nanosleep(&nap, NULL);
	free(p);
	return 0;
}
PROG
build_c "$WORK/hold" "$WORK/hold.c"
mprof_run 60 "$WORK/t" -- "$WORK/hold"
expect_eq "exit status" 0 "$RUN_STATUS"
report_json "$WORK/t.json" "$WORK/t"
expect_eq "heap peak (B)" 1600000 "$(q "$WORK/t.json" get summary.peak.bytes)"
expect_match "text report: the heap peak" '^heap peak: +1600000 B \(1\.5 MiB\) in 1 block' \
	"$("$MPROF" report -n 0 "$WORK/t" 2>&1)"

# the same trace with one RSS sample, its first (index dropped: its
# offsets would be stale)
"$PYTHON" - "$E2E_DIR" "$WORK/t" "$WORK/once" <<'PY' || hard_error "cannot write the one-sample trace"
import sys
sys.path.insert(0, sys.argv[1])
from trace_craft import chunk, chunks, read_u, u
data = open(sys.argv[2], "rb").read()
out, first = bytearray(data[:64]), None
for head, body, kind, flags, stream, payload, _ in chunks(data):
    if kind == 6:
        continue
    if kind == 5:
        if first is None:
            count, i = read_u(payload, 0)
            if count:
                t, i = read_u(payload, i)
                kib, i = read_u(payload, i)
                first = (t, kib)
                out += chunk(5, u(1) + u(t) + u(kib), stream, bool(flags & 1))
        continue
    out += head + body
if first is None:
    sys.exit("no RSS sample in the trace")
open(sys.argv[3], "wb").write(out)
PY
report_json "$WORK/once.json" "$WORK/once"
expect_eq "one-sample trace: its RSS samples" 1 "$(q "$WORK/once.json" len timeline.rss)"
rss_bytes=$(q "$WORK/once.json" get timeline.rss.0.rss_bytes)
# the page's bytes: "N B" below 1 KiB, else one decimal of KiB, MiB, ...
fmt() { awk -v b="$1" 'BEGIN { split("KiB MiB GiB TiB", U, " "); if (b < 1024) { printf "%d B", b; exit }
	u = 0; while (b >= 1024 && u < 4) { b /= 1024; u++ } printf "%.1f %s", b, U[u] }'; }

page() { # PAGE.html: heap-chart.mjs's lines
	run_cmd 60 "html-$(basename "$1")" "$MPROF" report --html "$2" "$1"
	expect_eq "$(basename "$1"): report --html exit status" 0 "$RUN_STATUS"
	run_cmd 120 "chart-$(basename "$1")" node "$BROWSER_DIR/heap-chart.mjs" "$2" "$2.png"
	cat "$RUN_OUT"
}
v() { sed -n "s/^$1=//p" "$RUN_OUT"; }

page "$WORK/once" "$WORK/once.html"
expect_eq "once: no problems" none "$(v problems)"
expect_eq "once: RSS is a dashed level, no dot" "1 0" "$(v 'rss once') $(v dots)"
expect_eq "once: the legend names the reading" \
	"heap (live requested bytes) | RSS (read once: $(fmt "$rss_bytes")) | peak (t-gmax)" "$(v legend)"
expect_eq "once: the peak label, as the text report writes it" "peak 1.5 MiB" "$(v 'peak label')"
expect_match "once: the axis's bytes have one decimal" '^0 B(,[0-9]+\.[0-9] [KMG]iB)+$' "$(v 'y labels')"

page "$WORK/t" "$WORK/t.html"
expect_eq "several samples: no problems" none "$(v problems)"
expect_eq "several samples: RSS a line through every sample, no dot" \
	"$(q "$WORK/t.json" len timeline.rss),$(q "$WORK/t.json" len timeline.points) 0 0" \
	"$(v lines) $(v 'rss once') $(v dots)"
expect_eq "several samples: the legend" "heap (live requested bytes) | RSS | peak (t-gmax)" "$(v legend)"
expect_eq "several samples: the peak label" "peak 1.5 MiB" "$(v 'peak label')"

# the time axis counts from the recording's start, not from the chart's
# first point: the README's demo program (first block about 1 ms in) put
# its peak at "2.8 ms" on the axis where the report says 3.7 ms.  The
# labels' times, interpolated at the peak's line, give the peak's time.
build_c "$WORK/demo" "$abs_top_srcdir/examples/demo.c"
mprof_run 60 "$WORK/d" -- "$WORK/demo"
expect_eq "demo: exit status" 0 "$RUN_STATUS"
report_json "$WORK/d.json" "$WORK/d"
peak_ns=$(q "$WORK/d.json" get summary.peak.time_ns)
page "$WORK/d" "$WORK/d.html"
expect_eq "demo: no problems" none "$(v problems)"
at=$(v 'time at peak line')
expect_range "demo: the axis's time under the peak's line, ns (the report: ${peak_ns:-?})" \
	"$(( ${peak_ns:-0} - ${peak_ns:-0} / 100 - 1000 ))" "$(( ${peak_ns:-0} + ${peak_ns:-0} / 100 + 1000 ))" "$at"
finish
