#!/bin/bash
# estimates.sh - what reports, exports and diffs say about figures that are
# not exact.  Sampled traces: the peak has no unbiased estimate (diff marks
# it rough and refuses a --fail-if on it; allocated, allocations and leaked
# stay allowed; folded stacks, which have no room for a note, get one on
# stderr, as temporary of a run recorded in part does); lifetimes have only the weighted average in ns; JSON's
# frees and reallocs are estimates beside the records, named so.  Runs
# recorded in part: the exports say so where their format has room for a
# note; temporary allocations are an upper bound, on which the diff's gate
# decides only what the bound proves; a switch from exact to
# sampled does not make the frees of unsampled blocks unmatched.
# Programs: tests/progs/leak_count.c (N leaked blocks of 1024 B, 100
# malloc/free pairs of 64 B) and partial_recording.c (its comment lists the
# facts of each mode).
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/leak_count" "$PROGS_DIR/leak_count.c"
build_c "$WORK/partial" "$PROGS_DIR/partial_recording.c" -I"$abs_top_srcdir/include"
pp() { "$PYTHON" "$E2E_DIR/pprof.py" "$@" 2>&1; }
jd() { "$PYTHON" -c 'import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2" 2>&1; }

RUN_NAME=s1 mprof_run 60 "$WORK/s1.trace" --sample-rate 4096 --sample-seed 3 -- "$WORK/leak_count" 7
expect_eq "sampled run A: exit status" 0 "$RUN_STATUS"
RUN_NAME=s2 mprof_run 60 "$WORK/s2.trace" --sample-rate 4096 --sample-seed 4 -- "$WORK/leak_count" 20
expect_eq "sampled run B: exit status" 0 "$RUN_STATUS"
RUN_NAME=e1 mprof_run 60 "$WORK/e1.trace" -- "$WORK/leak_count" 7
RUN_NAME=e2 mprof_run 60 "$WORK/e2.trace" -- "$WORK/leak_count" 20
RUN_NAME=p mprof_run 60 "$WORK/p.trace" --paused -- "$WORK/partial" resume
expect_eq "paused run: stdout" "partial_recording resume" "$(cat "$RUN_OUT")"

# ---- diff of sampled traces: the peak is rough, not a gate ----
run_cmd 60 dt "$MPROF" diff -n 1 "$WORK/s1.trace" "$WORK/s2.trace"
expect_eq "diff text: exit status" 0 "$RUN_STATUS"
expect_eq "diff text: the note on the peak" \
	"note: peak bytes and blocks (and max live) of a sampled trace are rough: they have no unbiased estimate and no --fail-if may test them" \
	"$(grep '^note: peak' "$RUN_OUT")"
expect_eq "diff text: rows marked rough" "peak bytes,peak blocks" \
	"$(grep '  rough$' "$RUN_OUT" | sed 's/^  //; s/  *[0-9].*//' | paste -sd,)"
expect_eq "diff text: leaked row not marked" "" "$(grep '^  leaked bytes .* rough$' "$RUN_OUT")"
expect_eq "diff text: the ranking in peak bytes says rough" \
	"== Grown in peak bytes: top 1 of 1 sites (rough: no unbiased estimate)" \
	"$(grep '^== Grown' "$RUN_OUT")"
expect_match "diff text: a site's peak says rough" '^    peak bytes \(rough\) [0-9]+ -> [0-9]+ \(\+[0-9]+\); peak blocks \(rough\) ' \
	"$(cat "$RUN_OUT")"
expect_match "diff text: a site's max live says rough" '^    max live \(rough\) [0-9]+ -> [0-9]+;' "$(cat "$RUN_OUT")"

gate() { # gate NAME EXPECTED_STATUS TRACE_A TRACE_B EXPR
	run_cmd 60 "gate-$1" "$MPROF" diff -n 0 --fail-if "$5" "$3" "$4"
	expect_eq "gate $5 ($1): exit status" "$2" "$RUN_STATUS"
}
gate peak 2 "$WORK/s1.trace" "$WORK/s2.trace" 'peak>+1%'
expect_eq "gate peak: one line of why" \
	"mprof: diff: --fail-if 'peak>+1%': peak bytes have no unbiased estimate in a sampled trace (rough); gate on leaked, allocated or allocations" \
	"$(cat "$RUN_ERR")"
expect_eq "gate peak: nothing on stdout" "" "$(cat "$RUN_OUT")"
gate site-peak-blocks 2 "$WORK/s1.trace" "$WORK/s2.trace" 'site:peak-blocks>0'
expect_eq "gate site:peak-blocks: one line" 1 "$(wc -l < "$RUN_ERR")"
gate exact-a 2 "$WORK/e1.trace" "$WORK/s2.trace" 'peak<1G'
gate allocated 1 "$WORK/s1.trace" "$WORK/s2.trace" 'allocated>=0'
expect_match "gate allocated: held" "^mprof: diff: condition held: allocated>=0: allocated bytes [0-9]+ -> [0-9]+" "$(cat "$RUN_ERR")"
gate leaked 0 "$WORK/s1.trace" "$WORK/s2.trace" 'leaked<0'
gate allocations 0 "$WORK/s1.trace" "$WORK/s2.trace" 'allocations<0'
gate exact-peak 1 "$WORK/e1.trace" "$WORK/e2.trace" 'peak>+1%'
# an unsigned condition reads B alone: a sampled A's temporary, which has no
# estimate, is not shown as if it were one (it was: "temporary N -> M")
gate temporary-b 1 "$WORK/s1.trace" "$WORK/e2.trace" 'temporary>=0'
expect_match "gate temporary>=0, A sampled: B's figure alone" \
	"^mprof: diff: condition held: temporary>=0: temporary in B [0-9]+ \(A has no estimate\)$" \
	"$(cat "$RUN_ERR")"
# folded stacks have no room for a note: it goes to stderr, for the
# metrics that need one only (the old folded output said nothing)
ROUGH='of a sampled trace are rough: they have no unbiased estimate'
folded_notes() { # folded_notes report|diff ARGS...: the notes on stderr of each run, '|' between
	local cmd=$1 i=0
	shift
	for args in "$@"; do
		i=$((i + 1))
		# shellcheck disable=SC2086 # ARGS are split on purpose
		run_cmd 60 "folded-$cmd-$i" "$MPROF" $cmd -f folded $args
		cat "$RUN_ERR"
		echo "|"
	done
}
expect_eq "report folded, sampled: a note for peak and peak-blocks, none for allocated" \
	"mprof: note: $WORK/s1.trace: peak bytes $ROUGH
|
mprof: note: $WORK/s1.trace: peak blocks $ROUGH
|
|" "$(folded_notes report "$WORK/s1.trace" "--metric peak-blocks $WORK/s1.trace" \
	"--metric allocated $WORK/s1.trace")"
expect_eq "diff folded, A sampled: a note for A's peak, none for B (exact) or for leaked" \
	"mprof: note: A ($WORK/s1.trace): peak bytes $ROUGH
|
|" "$(folded_notes diff "--force $WORK/s1.trace $WORK/e2.trace" \
	"--force --metric leaked $WORK/s1.trace $WORK/s2.trace")"
# flame graphs name the qualifier beside the metric, in the title and in the
# data the page reads (schema mprof-flamegraph, FLAME_DATA_SCHEMA_VERSION;
# the page's header and note: html-sampled.sh)
FLAME_VERSION=$(schema_version FLAME_DATA_SCHEMA_VERSION)
page_metric() { # the page's <title> up to the program, and its data's schema_version and metric
	grep -o '<title>[^:]*:' "$1"
	grep -o '"schema_version":[0-9]*' "$1" | head -1
	grep -o '"metric":{[^}]*}' "$1"
}
run_cmd 60 fg-s1 "$MPROF" report -f flamegraph -o "$WORK/s1.fg.html" "$WORK/s1.trace"
run_cmd 60 fg-s1a "$MPROF" report -f flamegraph --metric allocated -o "$WORK/s1a.fg.html" "$WORK/s1.trace"
expect_eq "report flame graph, sampled: peak bytes (rough), allocated bytes plain" \
	'<title>peak bytes (rough):
"schema_version":'"$FLAME_VERSION"'
"metric":{"name":"peak","label":"peak bytes","bytes":true,"qualifier":"rough"}
<title>allocated bytes:
"schema_version":'"$FLAME_VERSION"'
"metric":{"name":"allocated","label":"allocated bytes","bytes":true,"qualifier":null}' \
	"$(page_metric "$WORK/s1.fg.html"; page_metric "$WORK/s1a.fg.html")"
run_cmd 60 fg-d "$MPROF" diff -f flamegraph --metric peak-blocks -o "$WORK/d.fg.html" --force \
	"$WORK/e1.trace" "$WORK/s2.trace"
expect_eq "diff flame graph, B sampled: peak blocks (rough)" \
	'<title>peak blocks (rough) change:
"schema_version":'"$FLAME_VERSION"'
"metric":{"name":"peak-blocks","label":"peak blocks","bytes":false,"qualifier":"rough"}' \
	"$(page_metric "$WORK/d.fg.html")"
run_cmd 60 fg-dh "$MPROF" diff -f html -o "$WORK/d.page.html" "$WORK/s1.trace" "$WORK/s2.trace"
expect_eq "diff page, sampled: the fields' qualifiers, for its flame graphs" \
	"peak:rough leaked:None allocated:None allocations:None temporary:None peak-blocks:rough leaked-blocks:None rss:None" \
	"$("$PYTHON" -c 'import json, re, sys
t = open(sys.argv[1]).read()
page = json.loads(re.search(r"<script[^>]*id=\"mprof-page\"[^>]*>(.*?)</script>", t, re.S).group(1))
print(" ".join("%s:%s" % (f["name"], f["qualifier"]) for f in page["fields"]))' "$WORK/d.page.html" 2>&1)"
run_cmd 60 de "$MPROF" diff -n 1 "$WORK/e1.trace" "$WORK/e2.trace"
expect_eq "diff text, exact: nothing rough" "" "$(grep -i rough "$RUN_OUT")"

run_cmd 60 dj "$MPROF" diff -f json -o "$WORK/d.json" "$WORK/s1.trace" "$WORK/s2.trace"
expect_eq "diff json: schema version (DIFF_JSON_SCHEMA_VERSION)" \
	"$(schema_version DIFF_JSON_SCHEMA_VERSION)" "$(jd "$WORK/d.json" 'd["schema_version"]')"
expect_eq "diff json: rough keys" "['peak_bytes', 'peak_blocks']" "$(jd "$WORK/d.json" 'd["rough"]')"
expect_eq "diff json: A's kind" "estimated, sample rate 4096 B (4.0 KiB): counts and bytes are estimates" \
	"$(jd "$WORK/d.json" 'd["a_kind"]')"
run_cmd 60 dje "$MPROF" diff -f json -o "$WORK/de.json" "$WORK/e1.trace" "$WORK/e2.trace"
expect_eq "diff json, exact: nothing rough, exact kind" "[] exact: every allocation recorded" \
	"$(jd "$WORK/de.json" 'str(d["rough"]) + " " + d["b_kind"]')"

# ---- lifetimes of a sampled trace: only the average in ns, estimated ----
# (rate 64: most of churn()'s 100 blocks of 64 B are sampled, each freed)
RUN_NAME=s3 mprof_run 60 "$WORK/s3.trace" --sample-rate 64 --sample-seed 3 -- "$WORK/leak_count" 7
RUN_NAME=s4 mprof_run 60 "$WORK/s4.trace" --sample-rate 64 --sample-seed 4 -- "$WORK/leak_count" 9
report_json "$WORK/s3.json" "$WORK/s3.trace"
CH='[s for s in d["sites"] if s["frames"][0]["function"] == "churn"][0]'
expect_eq "sampled json: churn's blocks all freed (estimate)" True \
	"$(jd "$WORK/s3.json" "$CH[\"freed\"] == $CH[\"allocations\"] > 0")"
expect_eq "sampled json: no lifetime in events, no min or max" "None None None None None" \
	"$(jd "$WORK/s3.json" "' '.join(str($CH[k]) for k in ('lifetime_events_min', 'lifetime_events_avg', 'lifetime_events_max', 'lifetime_ns_min', 'lifetime_ns_max'))")"
expect_eq "sampled json: the average in ns" True "$(jd "$WORK/s3.json" "isinstance($CH[\"lifetime_ns_avg\"], float)")"
FREED=$(jd "$WORK/s3.json" "$CH[\"freed\"]")
run_cmd 60 s3t "$MPROF" report -n 5 "$WORK/s3.trace"
expect_match "sampled text: freed and the average, estimated" \
	"^    max live \\(rough\\) [0-9]+ B / [0-9]+ blocks; freed $FREED \\(estimate\\), average lifetime [0-9.]+ (ns|us|ms|s) \\(estimated, per block\\)\$" "$(cat "$RUN_OUT")"
expect_no_match "sampled text: no lifetime in events" 'lifetime min/avg/max' "$(cat "$RUN_OUT")"
run_cmd 60 s3d "$MPROF" report -f dhat -n 1 --sort avg-lifetime "$WORK/s3.trace"
expect_match "sampled dhat: the average, estimated" \
	"^  Lifetime:    avg [0-9.]+ (ns|us|ms|s) \\(estimated, per block\\), over $FREED blocks freed \\(estimate\\)\$" "$(cat "$RUN_OUT")"
expect_eq "sampled dhat: the note on lifetimes" "Lifetimes are estimated: the average in time (each recorded event timed) over the blocks" \
	"$(grep '^Lifetimes' "$RUN_OUT")"
run_cmd 60 s3dm "$MPROF" report -f dhat --sort max-lifetime "$WORK/s3.trace"
expect_eq "sampled dhat --sort max-lifetime: refused" 2 "$RUN_STATUS"
expect_eq "sampled dhat --sort max-lifetime: why" \
	"mprof: report: $WORK/s3.trace: the longest lifetime has no estimate in a sampled trace (--sort max-lifetime)" \
	"$(cat "$RUN_ERR")"
run_cmd 60 s3dj "$MPROF" report -f dhat-json -o "$WORK/s3.dhat.json" "$WORK/s3.trace"
expect_eq "sampled dhat-json: times in ns, no short-lived threshold" "ns ms 0" \
	"$(jd "$WORK/s3.dhat.json" '" ".join(str(d[k]) for k in ("tu", "Mtu", "tuth"))')"
expect_eq "sampled dhat-json: churn's tl is the weighted sum in ns" True \
	"$("$PYTHON" -c 'import json, sys
r = json.load(open(sys.argv[1])); j = json.load(open(sys.argv[2]))
c = [s for s in r["sites"] if s["frames"][0]["function"] == "churn"][0]
pp = [p for p in j["pps"] if p["tb"] == c["allocated_bytes"] and p["tbk"] == c["allocations"]]
print(len(pp) == 1 and abs(pp[0]["tl"] / c["freed"] - c["lifetime_ns_avg"]) < 0.1)' "$WORK/s3.json" "$WORK/s3.dhat.json" 2>&1)"
run_cmd 60 s3e "$MPROF" report -f dhat-json -o "$WORK/e1.dhat.json" "$WORK/e1.trace"
expect_eq "exact dhat-json: times in events" "events Mevents 1" \
	"$(jd "$WORK/e1.dhat.json" '" ".join(str(d[k]) for k in ("tu", "Mtu", "tuth"))')"
run_cmd 60 s3diff "$MPROF" diff --metric allocations -n 3 "$WORK/s3.trace" "$WORK/s4.trace"
expect_match "sampled diff: the average lifetime estimated" \
	'^    max live \(rough\) [0-9]+ -> [0-9]+; average lifetime \(estimated, per block\) [0-9.]+ (ns|us|ms|s) -> [0-9.]+ (ns|us|ms|s)$' "$(cat "$RUN_OUT")"
run_cmd 60 e1t "$MPROF" report -n 5 "$WORK/e1.trace"
expect_match "exact text: lifetimes in events and time" \
	'freed 100, lifetime min/avg/max 1/1.0/1 events, ' "$(cat "$RUN_OUT")"

# ---- an exact run switched to sampling: frees of unsampled blocks ----
RUN_NAME=sw mprof_run 60 "$WORK/sw.trace" -- "$WORK/partial" sample
expect_eq "switched run: stdout" "partial_recording sample" "$(cat "$RUN_OUT")"
report_json "$WORK/sw.json" "$WORK/sw.trace"
expect_eq "switched json: no unmatched frees" 0 "$(jd "$WORK/sw.json" 'd["summary"]["unmatched_frees"]')"
expect_eq "switched json: every free recorded" 1020 "$(jd "$WORK/sw.json" 'd["summary"]["calls"]["free"]')"
expect_eq "switched json: frees of unrecorded blocks = churn's 1000 less its samples" 1000 \
	"$(jd "$WORK/sw.json" 'd["summary"]["frees_of_unrecorded_blocks"] + d["summary"]["calls"]["malloc"] - 20')"
UNREC=$(jd "$WORK/sw.json" 'd["summary"]["frees_of_unrecorded_blocks"]')
run_cmd 60 swt "$MPROF" report -n 0 "$WORK/sw.trace"
expect_match "switched text: 0 unmatched" '^                  0 unmatched frees; ' "$(cat "$RUN_OUT")"
expect_eq "switched text: the expected frees, apart" \
	"                  $UNREC frees of blocks allocated while recording was stopped or sampled or by a thread without a slot (expected: an exact run records every free; not unmatched)" \
	"$(grep 'frees of blocks allocated while' "$RUN_OUT")"
report_json "$WORK/e1.json" "$WORK/e1.trace"
expect_eq "exact json: no frees of unrecorded blocks" "0 0" \
	"$(jd "$WORK/e1.json" '"%d %d" % (d["summary"]["unmatched_frees"], d["summary"]["frees_of_unrecorded_blocks"])')"

# ---- temporary allocations of an exact run recorded in part: at most ----
# (not_temporary()'s block counts, though a free the run did not record
# came between: 2 counted of 1 true)
report_json "$WORK/p.json" "$WORK/p.trace"
expect_eq "paused json: allocations, bytes, blocks freed, temporary" "8 2200 8 2" \
	"$(jd "$WORK/p.json" '" ".join(str(d["summary"][k]) for k in ("allocations", "allocated_bytes", "blocks_freed", "temporary"))')"
expect_eq "paused json: temporary is at most" True "$(jd "$WORK/p.json" 'd["summary"]["recording"]["temporary_at_most"]')"
expect_eq "exact json: no recording facts" False "$(jd "$WORK/e1.json" '"recording" in d["summary"]')"
run_cmd 60 pt "$MPROF" report -n 5 "$WORK/p.trace"
expect_eq "paused text: frees and temporary" \
	"frees:            8 recorded blocks freed (8 free calls recorded; blocks allocated while paused are in no count); reallocs of a live block 0; temporary at most 2 (25.0% of allocations: recording was paused part of the run, and calls it did not record may lie between an allocation and its free)" \
	"$(grep '^frees:' "$RUN_OUT")"
expect_eq "paused text: the ranking says at most" \
	"== Temporary allocations (at most: recording was paused part of the run): top 2 of 2 sites" \
	"$(grep '^== Temporary' "$RUN_OUT")"
expect_eq "paused text: not_temporary's site" \
	"    live at heap peak 500 B in 1 block; leaked 0 B in 0 blocks; temporary at most 1" \
	"$(grep -B3 'at not_temporary' "$RUN_OUT" | sed -n 2p)"
expect_match "paused text: lifetimes in events at least" \
	'^    max live 500 B / 1 block; freed 1, lifetime min/avg/max [0-9]+/[0-9.]+/[0-9]+ events \(at least\), ' "$(cat "$RUN_OUT")"
run_cmd 60 ptd "$MPROF" report -f dhat "$WORK/p.trace"
expect_eq "paused dhat: short-lived at most" "  Short-lived: at most 2 blocks (25.00%)" "$(grep -m1 'Short-lived:' "$RUN_OUT")"
expect_eq "paused dhat: the note" "Recording was paused part of the run: calls it did not record may lie" \
	"$(grep '^Recording was paused' "$RUN_OUT")"
run_cmd 60 ptp "$MPROF" report -f pprof -o "$WORK/pt.pb.gz" "$WORK/p.trace"
expect_match "paused pprof: temporary at most" '^temporary: .*, at most \(recording was paused part of the run' \
	"$(pp "$WORK/pt.pb.gz" get comments)"
# (the change of two upper bounds is a range, not their difference: the
# old row read "temporary 2 2 +0 +0.0% at most", and a bound of 2 to an
# exact 100 "+98 +4900.0% at most", which is at least +98)
temporary_row() { # temporary_row TRACE_A TRACE_B: the text diff's temporary row, spaces squeezed
	run_cmd 60 ptdiff "$MPROF" diff -n 0 --force "$1" "$2"
	grep '^  temporary ' "$RUN_OUT" | tr -s ' '
}
expect_eq "paused diff: the temporary row, both bounds: at most, the change a range" \
	" temporary at most 2 at most 2 -2..+2 - at most" "$(temporary_row "$WORK/p.trace" "$WORK/p.trace")"
expect_eq "paused diff: the temporary row, a bound to exact 100" \
	" temporary at most 2 100 +98..+100 - at most" "$(temporary_row "$WORK/p.trace" "$WORK/e1.trace")"
expect_eq "paused diff: the temporary row, exact 100 to a bound" \
	" temporary 100 at most 2 -100..-98 - at most" "$(temporary_row "$WORK/e1.trace" "$WORK/p.trace")"
expect_eq "paused diff: the temporary row, sampled A: B's bound says at most" \
	" temporary - at most 2 - - A: not estimated (sampled); at most" "$(temporary_row "$WORK/s1.trace" "$WORK/p.trace")"
run_cmd 60 ptsite "$MPROF" diff -n 1 --force --metric temporary "$WORK/e1.trace" "$WORK/p.trace"
expect_match "paused diff: a site's temporary change is a range" \
	'^    leaked bytes 0 -> 0 \(0\); leaked blocks 0 -> 0 \(0\); temporary \(at most\) 0 -> 1 \(0\.\.\+1\)$' \
	"$(cat "$RUN_OUT")"
run_cmd 60 ptdj "$MPROF" diff -f json -o "$WORK/pt.diff.json" "$WORK/p.trace" "$WORK/p.trace"
expect_eq "paused diff json: temporary at most, nothing rough" "['temporary'] []" \
	"$(jd "$WORK/pt.diff.json" 'str(d["at_most"]) + " " + str(d["rough"])')"
run_cmd 60 ptdj2 "$MPROF" diff -f json --force -o "$WORK/pe.diff.json" "$WORK/p.trace" "$WORK/e1.trace"
run_cmd 60 ptdj3 "$MPROF" diff -f json --force -o "$WORK/ep.diff.json" "$WORK/e1.trace" "$WORK/p.trace"
expect_eq "paused diff json: temporary's delta null where A is a bound, else B's upper bound" \
	"None None -98" "$(jd "$WORK/pt.diff.json" 'd["totals"]["delta"]["temporary"]') $(jd "$WORK/pe.diff.json" 'd["totals"]["delta"]["temporary"]') $(jd "$WORK/ep.diff.json" 'd["totals"]["delta"]["temporary"]')"
expect_eq "sampled diff json: nothing at most" "[]" "$(jd "$WORK/d.json" 'd["at_most"]')"
expect_eq "paused diff json: which side is bounded (both, A, B)" \
	"['temporary'] ['temporary'] | ['temporary'] [] | [] ['temporary']" \
	"$(jd "$WORK/pt.diff.json" 'd["a_at_most"], d["b_at_most"]' | tr -d '()' | sed 's/], /] /') | $(jd "$WORK/pe.diff.json" 'd["a_at_most"], d["b_at_most"]' | tr -d '()' | sed 's/], /] /') | $(jd "$WORK/ep.diff.json" 'd["a_at_most"], d["b_at_most"]' | tr -d '()' | sed 's/], /] /')"
# a ranking by a bounded metric ranks by what the range guarantees and says
# so: B - A of a bound is neither the change nor a bound of it (e1 -> p: B
# is at most 1 where e1 had none, which the old ranking called growth)
ranking_heads() { # TRACE_A TRACE_B: the text diff's ranking headings for temporary
	run_cmd 60 ptrank "$MPROF" diff -n 1 --force --metric temporary "$1" "$2"
	grep '^== ' "$RUN_OUT"
}
HOW='ranked by the growth the bounds guarantee, then by the most they allow'
HOWS='ranked by the shrink the bounds guarantee, then by the most they allow'
expect_eq "paused diff: rankings when B is a bound: nothing grew for sure" \
	"== Grown in temporary (at most: B's are upper bounds): top 1 of 2 sites that may have grown, 0 for sure; $HOW
== Shrunk in temporary (at most: B's are upper bounds): top 1 of 1 sites that may have shrunk, 1 for sure; $HOWS" \
	"$(ranking_heads "$WORK/e1.trace" "$WORK/p.trace")"
expect_eq "paused diff: rankings when A is a bound: nothing shrank for sure" \
	"== Grown in temporary (at most: A's are upper bounds): top 1 of 1 sites that may have grown, 1 for sure; $HOW
== Shrunk in temporary (at most: A's are upper bounds): top 1 of 2 sites that may have shrunk, 0 for sure; $HOWS" \
	"$(ranking_heads "$WORK/p.trace" "$WORK/e1.trace")"
if [ -x /usr/bin/chromium ] && command -v node >/dev/null 2>&1 &&
	[ -d "$BROWSER_DIR/node_modules/playwright-core" ]; then
	run_cmd 60 ptpage "$MPROF" diff -f html -o "$WORK/ep.html" --force "$WORK/e1.trace" "$WORK/p.trace"
	run_cmd 120 ptrankings node "$BROWSER_DIR/diff-check.mjs" rankings "$WORK/ep.html" temporary
	expect_eq "paused diff page: the temporary tables rank and say as the text" \
		"ranking=May have grown in temporary (at most: B's are upper bounds; 2 sites, 0 for sure; $HOW)
first=#1 ; 0..+1 ; - ; 0 ; 1
ranking=May have shrunk in temporary (at most: B's are upper bounds; 1 site, 1 for sure; $HOWS)
first=#1 ; -100 ; - ; 100 ; 0
problems=0" "$(cat "$RUN_OUT")"
else
	echo "note: the diff page's checks need chromium and tests/browser's node modules; not made"
fi
AT_MOST='temporary counts are upper bounds (at most): recording was paused part of the run, and calls it did not record may lie between an allocation and its free'
expect_eq "folded, recorded in part: a note for temporary, in report and diff" \
	"mprof: note: $WORK/p.trace: $AT_MOST
|
mprof: note: A ($WORK/p.trace): $AT_MOST
mprof: note: B ($WORK/p.trace): $AT_MOST
|" "$(folded_notes report "--metric temporary $WORK/p.trace")
$(folded_notes diff "--metric temporary $WORK/p.trace $WORK/p.trace")"
run_cmd 60 fg-p "$MPROF" report -f flamegraph --metric temporary -o "$WORK/p.fg.html" "$WORK/p.trace"
expect_eq "report flame graph, recorded in part: temporary (at most)" \
	'<title>temporary (at most):
"schema_version":'"$FLAME_VERSION"'
"metric":{"name":"temporary","label":"temporary","bytes":false,"qualifier":"at most"}' \
	"$(page_metric "$WORK/p.fg.html")"

# ---- the gate on an upper bound: it decides only what the bound proves ----
# (p.trace: temporary at most 2, of 1 made; e1.trace: 100, exact.  The old
# gate read the bound as the count: temporary>1 failed and temporary<=1
# passed, both wrong on the 1 made, and temporary>+0 passed between two
# bounds that cannot show growth.)  Each check is the exit status, then
# what the gate printed.
bound_gate() { # bound_gate NAME TRACE_A TRACE_B EXPR...: RUN_STATUS, RUN_ERR
	local name=$1 ta=$2 tb=$3 args=()
	shift 3
	for e in "$@"; do args+=(--fail-if "$e"); done
	run_cmd 60 "bound-$name" "$MPROF" diff -n 0 --force "${args[@]}" "$ta" "$tb"
}
verdict() { echo "$RUN_STATUS $(cat "$RUN_ERR")"; }
P="$WORK/p.trace"
BOUND=': the temporary allocations of a trace recorded in part are only an upper bound'
FIG='temporary at most 2 -> at most 2 (from -2 to +2)'
bound_gate over "$P" "$P" 'temporary>1'
expect_eq "gate temporary>1 on a bound of 2: undecided (exit 2), with the figures" \
	"2 mprof: diff: condition undecided: temporary>1: $FIG$BOUND" "$(verdict)"
bound_gate under "$P" "$P" 'temporary<=1'
expect_eq "gate temporary<=1 on a bound of 2: undecided" \
	"2 mprof: diff: condition undecided: temporary<=1: $FIG$BOUND" "$(verdict)"
bound_gate growth "$P" "$P" 'temporary>+0'
expect_eq "gate temporary>+0 between two bounds: undecided" \
	"2 mprof: diff: condition undecided: temporary>+0: $FIG$BOUND" "$(verdict)"
bound_gate below "$P" "$P" 'temporary<3'
expect_eq "gate temporary<3 on a bound of 2: held, the bounds marked" \
	"1 mprof: diff: condition held: temporary<3: $FIG" "$(verdict)"
# (the old gate passed here too: this one guards the pass a bound proves)
bound_gate proves "$P" "$P" 'temporary>2'
expect_eq "gate temporary>2 on a bound of 2: passes, nothing printed" "0 " "$(verdict)"
bound_gate site "$P" "$P" 'site:temporary>0'
expect_eq "gate site:temporary>0: undecided, temporary()'s and not_temporary()'s sites" \
	"2 mprof: diff: condition undecided: site:temporary>0: 2 sites may hold it$BOUND
    temporary at most 1 -> at most 1 (from -1 to +1) at not_temporary
    temporary at most 1 -> at most 1 (from -1 to +1) at temporary" \
	"$(verdict | sed 's/ (partial_recording\.c:[0-9]*)$//')"
bound_gate held-too "$P" "$P" 'temporary>1' 'allocations>=0'
expect_eq "gate temporary>1 and allocations>=0: one held (exit 1), one undecided" "1 undecided held" \
	"$RUN_STATUS $(sed 's/^mprof: diff: condition \([a-z]*\): .*/\1/' "$RUN_ERR" | paste -sd' ')"
bound_gate drop "$WORK/e1.trace" "$P" 'temporary<-50'
expect_eq "gate temporary<-50, exact 100 to a bound of 2: held, the range of the change" \
	"1 mprof: diff: condition held: temporary<-50: temporary 100 -> at most 2 (from -100 to -98, -100.0% to -98.0%)" \
	"$(verdict)"
bound_gate drop-more "$WORK/e1.trace" "$P" 'temporary<-99'
expect_eq "gate temporary<-99, exact 100 to a bound of 2: undecided" \
	"2 mprof: diff: condition undecided: temporary<-99: temporary 100 -> at most 2 (from -100 to -98, -100.0% to -98.0%)$BOUND" \
	"$(verdict)"
bound_gate grew "$P" "$WORK/e1.trace" 'temporary>+50'
expect_eq "gate temporary>+50, a bound of 2 to exact 100: growth shown, held" \
	"1 mprof: diff: condition held: temporary>+50: temporary at most 2 -> 100 (from +98 to +100)" \
	"$(verdict)"
bound_gate sampled-a "$WORK/s1.trace" "$P" 'temporary>1'
expect_eq "gate temporary>1, A sampled, B a bound of 2: undecided, B's figure alone" \
	"2 mprof: diff: condition undecided: temporary>1: temporary in B at most 2 (A has no estimate)$BOUND" \
	"$(verdict)"
run_cmd 60 bound-html "$MPROF" diff -f html -o "$WORK/pt.html" --fail-if 'temporary>1' "$P" "$P"
expect_eq "gate on the page: exit 2, none held, one undecided in its data" '2 "held":0,"undecided":1' \
	"$RUN_STATUS $(grep -o '"held":[0-9]*,"undecided":[0-9]*' "$WORK/pt.html")"
run_cmd 60 etext "$MPROF" report -n 0 "$WORK/e1.trace"
expect_match "exact text: temporary plain" '^frees: +[0-9]+; reallocs of a live block 0; temporary [0-9]+ \(' "$(cat "$RUN_OUT")"

# ---- sampled JSON: frees and reallocs are estimates, records named so ----
# (grow(): 1000 reallocs of a 64 B block to 4096 B, each freed: every
# sampled new block is freed once, so the two estimates are the same sum)
RUN_NAME=ra mprof_run 60 "$WORK/ra.trace" --sample-rate 4096 --sample-seed 5 -- "$WORK/partial" reallocs
expect_eq "realloc run: stdout" "partial_recording reallocs" "$(cat "$RUN_OUT")"
report_json "$WORK/ra.json" "$WORK/ra.trace"
SUM='d["summary"]'
expect_eq "sampled json: schema mprof-report (in version 1 frees and reallocs were the records)" \
	"mprof-report $(schema_version OUTPUT_REPORT_SCHEMA_VERSION)" "$(jd "$WORK/ra.json" 'd["schema"] + " " + str(d["schema_version"])')"
expect_eq "sampled json: frees and reallocs estimated alike" True "$(jd "$WORK/ra.json" "$SUM[\"frees\"] == $SUM[\"reallocs\"]")"
expect_range "sampled json: reallocs near the 1000 made" 800 1200 "$(jd "$WORK/ra.json" "$SUM[\"reallocs\"]")"
expect_eq "sampled json: the records, named" True \
	"$(jd "$WORK/ra.json" "$SUM[\"frees_recorded\"] == $SUM[\"calls\"][\"free\"] + $SUM[\"calls\"][\"realloc_release\"] and $SUM[\"reallocs_recorded\"] < $SUM[\"calls\"][\"realloc\"] < $SUM[\"reallocs\"]")"
expect_eq "sampled json: failed reallocs have no estimate" "None 0" \
	"$(jd "$WORK/ra.json" "'%s %s' % ($SUM[\"failed_reallocs\"], $SUM[\"failed_reallocs_recorded\"])")"
run_cmd 60 rat "$MPROF" report -n 0 "$WORK/ra.trace"
expect_eq "sampled text: the estimates and the records" \
	"frees:            $(jd "$WORK/ra.json" "$SUM[\"blocks_freed\"]") blocks freed, $(jd "$WORK/ra.json" "$SUM[\"frees\"]") free calls, $(jd "$WORK/ra.json" "$SUM[\"reallocs\"]") realloc calls (estimates, realloc(NULL, n) included; $(jd "$WORK/ra.json" "$SUM[\"frees_recorded\"]") free calls and $(jd "$WORK/ra.json" "$SUM[\"reallocs_recorded\"]") reallocs of a recorded block recorded); temporary not estimated (sampled)" \
	"$(grep '^frees:' "$RUN_OUT")"
expect_eq "exact json: frees and records the same" True \
	"$(jd "$WORK/e1.json" "$SUM[\"frees\"] == $SUM[\"frees_recorded\"] == $SUM[\"calls\"][\"free\"] and $SUM[\"failed_reallocs\"] == $SUM[\"failed_reallocs_recorded\"] == 0")"

# ---- exports of a run recorded in part say so ----
PAUSED='exact while recording was on; recording paused part of the run: recorded [0-9.]+ (ns|us|ms|s) of [0-9.]+ (ns|us|ms|s)'
run_cmd 60 pdhat "$MPROF" report -f dhat "$WORK/p.trace"
expect_match "paused dhat: counts" "^  Counts:  $PAUSED\$" "$(cat "$RUN_OUT")"
run_cmd 60 pdj "$MPROF" report -f dhat-json -o "$WORK/p.dhat.json" "$WORK/p.trace"
AT_MOST='temporary \(short-lived\) counts are at most and lifetimes in events at least: calls not recorded while paused may lie between an allocation and its free'
expect_match "paused dhat-json: cmd, with what pausing makes of short-lived" \
	"^$WORK/partial resume \\[mprof: $PAUSED\\] \\[mprof: $AT_MOST\\]\$" \
	"$(jd "$WORK/p.dhat.json" 'd["cmd"]')"
run_cmd 60 pms "$MPROF" report -f massif -o "$WORK/p.massif" "$WORK/p.trace"
expect_match "paused massif: desc" "^desc: mprof: .*\\(its highest heap\\); $PAUSED\$" "$(head -1 "$WORK/p.massif")"
run_cmd 60 ppb "$MPROF" report -f pprof -o "$WORK/p.pb.gz" "$WORK/p.trace"
expect_match "paused pprof: a comment" "^$PAUSED\$" "$(pp "$WORK/p.pb.gz" get comments)"
run_cmd 60 pss "$MPROF" report -f speedscope -o "$WORK/p.ss.json" "$WORK/p.trace"
expect_match "paused speedscope: name" "^$WORK/partial resume \\[mprof: $PAUSED\\] \\[mprof: $AT_MOST\\]\$" \
	"$(jd "$WORK/p.ss.json" 'd["name"]')"
expect_eq "paused speedscope: the temporary profile says at most" "temporary (at most)" \
	"$(jd "$WORK/p.ss.json" 'd["profiles"][4]["name"]')"
run_cmd 60 pfg "$MPROF" report -f flamegraph -o "$WORK/p.fg.html" "$WORK/p.trace"
expect_eq "paused flame graph: the kind as the text header's, and a note" \
	"\"kind\":\"exact while recording was on; see recorded\",\"notes\":[\"recording paused part of the run: recorded" \
	"$(grep -o '"kind":"[^"]*","notes":\["recording paused part of the run: recorded' "$WORK/p.fg.html")"
run_cmd 60 edhat "$MPROF" report -f dhat "$WORK/e1.trace"
expect_eq "exact dhat: counts" "  Counts:  exact" "$(grep 'Counts:' "$RUN_OUT")"
run_cmd 60 ess "$MPROF" report -f speedscope -o "$WORK/e.ss.json" "$WORK/e1.trace"
expect_eq "exact speedscope: the name alone" "$WORK/leak_count 7" "$(jd "$WORK/e.ss.json" 'd["name"]')"
run_cmd 60 epb "$MPROF" report -f pprof -o "$WORK/e.pb.gz" "$WORK/e1.trace"
expect_eq "exact pprof: no comment on the kind" "" "$(pp "$WORK/e.pb.gz" get comments | grep -E '^(exact|estimated)')"
run_cmd 60 sdhat "$MPROF" report -f dhat "$WORK/s1.trace"
expect_eq "sampled dhat: counts" \
	"  Counts:  sampled (estimates: each recorded allocation stands for several); estimated, sample rate 4096 B (4.0 KiB): counts and bytes are estimates" \
	"$(grep 'Counts:' "$RUN_OUT")"
finish
