#!/bin/bash
# time-resolution.sh - exact-mode times are honest about the clock's
# resolution.  A thread's event is timed afresh once its event clock moved
# a grain (trace/event_clock.h: 2^22 ticks of the x86 time-stamp counter,
# about 2 ms; elsewhere a tick of the coarse clock): the trace records that
# grain (META time_resolution_ns), and a lifetime or time measured below it
# is shown as "< 2 ms" (text, dhat, diff, the page's peak card; JSON's
# summary.time_resolution_ns), not as the "0 ns" a block freed within the
# tick of its allocation got.  Blocks that live 50 ms keep their figures;
# a sampled trace (every sample timed afresh) and a trace without the key
# (before it was written) print every figure as before.
# Program and facts: tests/progs/tick_lives.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/tick_lives" "$PROGS_DIR/tick_lives.c"

# the grain as the program measures it on its own
GRAIN=$("$WORK/tick_lives" res)
expect_match "the event clock's grain (ns)" '^[1-9][0-9]*$' "$GRAIN"
# the resolution as the reports write it: output_fmt_ns without the
# fraction's trailing zeros ("4 ms", "3.33 ms")
label() {
	awk -v n="$1" 'BEGIN {
		if (n < 1000) s = sprintf("%d ns", n)
		else if (n < 1e6) s = sprintf("%.1f us", n / 1e3)
		else if (n < 1e9) s = sprintf("%.2f ms", n / 1e6)
		else s = sprintf("%.3f s", n / 1e9)
		if (index(s, ".")) { sub(/0+ /, " ", s); sub(/\. /, " ", s) }
		print "< " s }'
}
# the site line of a text report that holds FUNC's frame
site_line() {
	awk -v f="at $2 " '/^#[0-9]/ { h = "" } /max live/ { h = $0 }
		index($0, f) && h != "" { print h; exit }' "$1"
}
# TRACE with META's time_resolution_ns set to VALUE (none: left out) and
# the chunk index dropped (its offsets would be stale): a trace written
# before the key was, or one whose clock ticks every VALUE ns
rewrite_meta() {
	"$PYTHON" - "$E2E_DIR" "$1" "$2" "$3" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
from trace_craft import chunk, chunks
src, dst, value = sys.argv[2:5]
data = open(src, "rb").read()
out = bytearray(data[:64])
for head, body, kind, flags, stream, payload, _ in chunks(data):
    if kind == 6:
        continue
    if kind == 1:
        lines = [l for l in payload.decode().splitlines() if not l.startswith("time_resolution_ns=")]
        if value != "none":
            lines.append("time_resolution_ns=" + value)
        out += chunk(1, ("\n".join(lines) + "\n").encode(), stream, bool(flags & 1))
        continue
    out += head + body
open(dst, "wb").write(out)
PY
}

# ---- blocks freed within a tick of their allocation ----
mprof_run 60 "$WORK/short" -- "$WORK/tick_lives" short
expect_eq "short: exit status" 0 "$RUN_STATUS"
expect_eq "short: stdout" ok "$(cat "$RUN_OUT")"
report_json "$WORK/short.json" "$WORK/short"
expect_site "$WORK/short.json" short_life 5 500 0 0
# the launcher's measure of the grain, within 5% of the program's
RES=$(q "$WORK/short.json" get summary.time_resolution_ns)
expect_range "short: JSON time_resolution_ns" $((GRAIN * 95 / 100)) $((GRAIN * 105 / 100)) "$RES"
LT=$(label "$RES")
expect_eq "short: lifetime_ns_min below the resolution" yes \
	"$(json_eval "$WORK/short.json" "'yes' if site('short_life')[0]['lifetime_ns_min'] < $RES else 'no'")"
"$MPROF" report -n 5 "$WORK/short" >"$WORK/short.txt" 2>&1
"$MPROF" report --format dhat "$WORK/short" >"$WORK/short.dhat" 2>&1
# a block's two events are microseconds apart unless the program was
# preempted between them for a tick or more (a loaded machine): then that
# lifetime measures a tick or more, and only the minimum is checked
if [ "$(json_eval "$WORK/short.json" "site('short_life')[0]['lifetime_ns_max'] < $RES")" = True ]; then
	expect_eq "short: text lifetimes" \
		"    max live 100 B / 1 block; freed 5, lifetime min/avg/max 1/1.0/1 events, $LT/$LT/$LT" \
		"$(site_line "$WORK/short.txt" short_life)"
	expect_match "short: dhat lifetimes" \
		"^  Lifetime:    avg 1\\.0 events \\($LT\\), max 1 events \\($LT\\), over 5 blocks freed\$" \
		"$(cat "$WORK/short.dhat")"
else
	echo "# a block of short_life measured a tick or more (preempted): only the minimum is checked"
	expect_match "short: text lifetimes, the minimum" \
		"^    max live 100 B / 1 block; freed 5, lifetime min/avg/max 1/1\\.0/1 events, $LT/" \
		"$(site_line "$WORK/short.txt" short_life)"
fi

# ---- blocks that live 50 ms ----
mprof_run 60 "$WORK/long" -- "$WORK/tick_lives" long
expect_eq "long: exit status" 0 "$RUN_STATUS"
report_json "$WORK/long.json" "$WORK/long"
expect_site "$WORK/long.json" long_life 3 600 0 0
expect_range "long: JSON time_resolution_ns" $((GRAIN * 95 / 100)) $((GRAIN * 105 / 100)) \
	"$(q "$WORK/long.json" get summary.time_resolution_ns)"
# 50 ms, both ends timed afresh (after a 20 and a 50 ms sleep), plus a
# loaded machine's oversleep
expect_range "long: shortest lifetime (ns)" 50000000 150000000 \
	"$(q "$WORK/long.json" sum lifetime_ns_min long_life)"
"$MPROF" report -n 5 "$WORK/long" >"$WORK/long.txt" 2>&1
expect_match "long: text lifetimes are figures" \
	'^    max live 200 B / 1 block; freed 3, lifetime min/avg/max 1/1\.0/1 events, [0-9.]+ ms/[0-9.]+ ms/[0-9.]+ ms$' \
	"$(site_line "$WORK/long.txt" long_life)"

# ---- a trace without the key: every figure printed as before ----
rewrite_meta "$WORK/short" "$WORK/old" none
report_json "$WORK/old.json" "$WORK/old"
expect_eq "old trace: JSON time_resolution_ns" null "$(q "$WORK/old.json" get summary.time_resolution_ns)"
"$MPROF" report -n 5 "$WORK/old" >"$WORK/old.txt" 2>&1
expect_match "old trace: text lifetimes are figures" \
	'^    max live 100 B / 1 block; freed 5, lifetime min/avg/max 1/1\.0/1 events, [0-9.]+ [mun]?s/[0-9.]+ [mun]?s/[0-9.]+ [mun]?s$' \
	"$(site_line "$WORK/old.txt" short_life)"
expect_no_match "old trace: no '< ' anywhere in the text" '< ' "$(cat "$WORK/old.txt")"

# ---- a clock of 10 s ticks: every time of the run is below it ----
rewrite_meta "$WORK/long" "$WORK/slow" 10000000000
"$MPROF" report -n 5 "$WORK/slow" >"$WORK/slow.txt" 2>&1
expect_eq "10 s ticks: text lifetimes" \
	"    max live 200 B / 1 block; freed 3, lifetime min/avg/max 1/1.0/1 events, < 10 s/< 10 s/< 10 s" \
	"$(site_line "$WORK/slow.txt" long_life)"
expect_match "10 s ticks: the peak's time" '^heap peak: .* into the recording$' "$(cat "$WORK/slow.txt")"
expect_match "10 s ticks: the peak's time is < 10 s" ', < 10 s into the recording$' \
	"$(grep '^heap peak:' "$WORK/slow.txt")"
# A's short_life vanished, B's long_life is new
"$MPROF" diff --format json "$WORK/short" "$WORK/slow" >"$WORK/diff.json" 2>&1
expect_eq "diff JSON: a_time_resolution_ns" "$RES" "$(q "$WORK/diff.json" get a_time_resolution_ns)"
expect_eq "diff JSON: b_time_resolution_ns" 10000000000 "$(q "$WORK/diff.json" get b_time_resolution_ns)"
"$MPROF" diff --metric allocated "$WORK/short" "$WORK/slow" >"$WORK/diff.txt" 2>&1
expect_match "diff text: A's average lifetime" "; average lifetime $LT -> \\(not in B\\)\$" "$(cat "$WORK/diff.txt")"
expect_match "diff text: B's average lifetime" '; average lifetime \(not in A\) -> < 10 s$' "$(cat "$WORK/diff.txt")"

# ---- a sampled trace: every sample is timed afresh ----
RUN_NAME=sampled mprof_run 60 "$WORK/sampled" --sample-rate 1 --sample-seed 1 -- \
	"$WORK/tick_lives" short
expect_eq "sampled: exit status" 0 "$RUN_STATUS"
report_json "$WORK/sampled.json" "$WORK/sampled"
expect_eq "sampled: JSON time_resolution_ns" null "$(q "$WORK/sampled.json" get summary.time_resolution_ns)"
"$MPROF" report -n 5 "$WORK/sampled" >"$WORK/sampled.txt" 2>&1
expect_match "sampled: the average lifetime is a figure" \
	'average lifetime [0-9.]+ [mun]?s \(estimated, per block\)$' \
	"$(site_line "$WORK/sampled.txt" short_life)"

# ---- the page's peak card ----
if [ -x /usr/bin/chromium ] && command -v node >/dev/null 2>&1 &&
	[ -d "$BROWSER_DIR/node_modules/playwright-core" ]; then
	run_cmd 60 html "$MPROF" report --html "$WORK/slow.html" "$WORK/slow"
	expect_eq "page: exit status" 0 "$RUN_STATUS"
	run_cmd 120 page node "$BROWSER_DIR/report-page.mjs" "$WORK/slow.html" "$WORK/slow.png"
	expect_eq "page: node exit status" 0 "$RUN_STATUS"
	expect_match "page, 10 s ticks: the peak card's time" \
		'^card heap peak \(t-gmax\) detail=1 block, at < 10 s$' "$(cat "$RUN_OUT")"
else
	echo "# no headless chromium here: the page's peak card is not checked"
fi
finish
