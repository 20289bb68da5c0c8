#!/bin/bash
# diff-pages.sh - `mprof diff --format flamegraph` and `--format html`
# between two versions of one program built in different folders
# (tests/progs/diff_versions.c without and with -DVERSION_B): each page is
# one file that loads from file:// in headless chromium with no console
# error and no request; the html page's totals equal `mprof diff --format
# json`'s exactly, it shows the --fail-if verdict and ranks the new site
# first; in both flame graphs the search finds grow (10 -> 30 blocks of
# 100 B) with its share and change, grow's frame is red-ish, steady's (the
# same in both) grey, and the vanished dropped's frame (sized by A)
# blue-ish; a gate on an upper bound that cannot decide says so (exit 2);
# of two sampled traces, the totals' changes and the sites' in the
# rankings carry their 95% margins, as the JSON's (a count's in blocks
# where one side has no sample).
source "$(dirname "$0")/lib.sh"
require_mprof
require_browser
make_work
SRC="$PROGS_DIR/diff_versions.c"
mkdir -p "$WORK/a" "$WORK/b"
build_c "$WORK/a/prog" "$SRC"
build_c "$WORK/b/prog" "$SRC" -DVERSION_B
RUN_NAME=ra mprof_run 60 "$WORK/ta" -- "$WORK/a/prog"
expect_eq "A: stdout" "diff_versions A" "$(cat "$RUN_OUT")"
RUN_NAME=rb mprof_run 60 "$WORK/tb" -- "$WORK/b/prog"
expect_eq "B: stdout" "diff_versions B" "$(cat "$RUN_OUT")"

run_cmd 60 j "$MPROF" diff --format json "$WORK/ta" "$WORK/tb"
J="$WORK/j.out"
jd() {
	"$PYTHON" -c 'import json, sys
d = json.load(open(sys.argv[1]))
def site(fn):
    return [s for s in d["sites"] if s["frames"] and s["frames"][0]["function"] == fn][0]
print(eval(sys.argv[2]))' "$J" "$1" 2>&1
}
expect_eq "json: grow's allocated bytes A B (tests/progs/diff_versions.c)" "1000 3000" \
	"$(jd '"%d %d" % (site("grow")["a"]["allocated_bytes"], site("grow")["b"]["allocated_bytes"])')"
total_b=$(jd 'd["totals"]["b"]["allocated_bytes"]')
share=$("$PYTHON" -c 'import sys; print("%.1f" % (300000 / int(sys.argv[1])))' "$total_b")
val() { grep "^$1=" "$RUN_OUT" | head -1 | cut -d= -f2-; }

# the flame graph checks shared by both pages (RUN_OUT is diff-check's)
check_flame() {
	local what=$1
	expect_eq "$what: search grow: its B value" 3000 "$(val search_value)"
	expect_eq "$what: search grow: of B's total" "$total_b" "$(val search_total)"
	expect_eq "$what: search grow: its A value" 1000 "$(val search_a)"
	expect_match "$what: search grow: share and change shown" \
		"^matched $share% of .*; change \\+2,000 B \\(2\\.0 KiB\\), \\+200\\.0%\$" "$(val search_text)"
	expect_eq "$what: grow grew: its frame is red-ish" 1 "$(val grown_reddish)"
	expect_eq "$what: steady is the same: its frame is grey" 1 "$(val same_grey)"
	expect_eq "$what: dropped vanished: sized by A its frame is blue-ish" 1 "$(val shrunk_bluish)"
	expect_eq "$what: inverted view: grow (it allocates) right under the root" 1 "$(val inverted_grown_depth)"
	expect_eq "$what: inverted view: grow red-ish" 1 "$(val inverted_grown_reddish)"
	expect_match "$what: tooltip: A, B, change, relative change" \
		"^grow.*diff_versions\\.c:[0-9]+ \\[prog\\]A 1,000 B allocatedB 3,000 B \\(2\\.9 KiB\\) allocatedchange \\+2,000 B \\(2\\.0 KiB\\), \\+200\\.0%" \
		"$(val tooltip)"
	expect_match "$what: header: A's and B's totals and the change" \
		"^A .*ta .*: $(jd '"{:,}".format(d["totals"]["a"]["allocated_bytes"])') B .* allocated.*B .*tb .*: $(jd '"{:,}".format(d["totals"]["b"]["allocated_bytes"])') B .*change \\+$(jd '"{:,}".format(d["totals"]["delta"]["allocated_bytes"])') B" \
		"$(val header)"
	# colours are relative to the largest change of a box (main's: grow's
	# +2,000, leak_new's +2,560 and dropped's -1,280), and the legend says so
	expect_eq "$what: legend: full colour is the largest change" \
		"full colour: the largest change, ±3,280 B (3.2 KiB)" "$(val legend_scale)"
	expect_eq "$what: screenshot not blank" 1 "$(val not_blank)"
	expect_eq "$what: no console error, page error or request" 0 "$(val problems)"
}

# ---- --format flamegraph ----
run_cmd 60 fg "$MPROF" diff --format flamegraph --metric allocated -o "$WORK/fg.html" "$WORK/ta" "$WORK/tb"
expect_eq "flamegraph: exit status" 0 "$RUN_STATUS"
expect_eq "flamegraph: nothing on stdout" "" "$(cat "$RUN_OUT")"
expect_eq "flamegraph: no message" "" "$(cat "$RUN_ERR")"
expect_eq "flamegraph: no src= or href= to anything" 0 "$(grep -ciE '(src|href)=' "$WORK/fg.html")"
expect_eq "flamegraph: one </script> per script element" 2 "$(grep -o '</script>' "$WORK/fg.html" | wc -l)"
run_cmd 120 fgcheck node "$BROWSER_DIR/diff-check.mjs" flame "$WORK/fg.html" allocated grow dropped "$WORK/fg.png" steady
cat "$RUN_OUT" "$RUN_ERR"
expect_eq "flamegraph: browser check exit status" 0 "$RUN_STATUS"
check_flame flamegraph

# ---- --format html, with a gate that holds ----
run_cmd 60 html "$MPROF" diff --format html --fail-if 'allocated>+10%' --fail-if 'leaked>+1M' \
	-o "$WORK/d.html" "$WORK/ta" "$WORK/tb"
expect_eq "html: exit status 1 (allocated grew 41%)" 1 "$RUN_STATUS"
expect_match "html: the condition that held on stderr" "condition held: allocated>\\+10%" "$(cat "$RUN_ERR")"
expect_eq "html: no src= or href= to anything" 0 "$(grep -ciE '(src|href)=' "$WORK/d.html")"
run_cmd 120 page node "$BROWSER_DIR/diff-check.mjs" page "$WORK/d.html" allocated grow dropped "$WORK/d.png" steady
cat "$RUN_OUT" "$RUN_ERR"
expect_eq "html: browser check exit status" 0 "$RUN_STATUS"
expect_eq "html: title" "mprof diff: prog" "$(val title)"
for k in peak_bytes leaked_bytes allocated_bytes allocations temporary peak_blocks leaked_blocks \
	peak_rss_bytes; do
	expect_eq "html: totals row $k = json's A B delta" \
		"$(jd "' '.join(str(d['totals'][s]['$k']) for s in ('a', 'b', 'delta'))")" "$(val "total $k")"
done
expect_eq "html: site counts" \
	"sites: 1 changed, 1 new (only in B), 1 vanished (only in A); the others are the same." \
	"$(val site_counts)"
expect_eq "html: the verdict" "--fail-if: 1 of 2 conditions held (exit status 1)" "$(val gate)"
expect_match "html: allocated: leak_new grew most, marked new" \
	'^#1 ; \+2,560 ; new ; 0 ; 2,560 \(2\.5 KiB\) ; leak_new new \| .*diff_versions\.c:[0-9]+ \[prog\]$' \
	"$(val grown_first)"
check_flame "html's flame graph"

# ---- a gate the figures cannot decide: temporary of a run recorded in part ----
# (tests/progs/partial_recording.c resume under --paused: temporary at most
# 2, of 1 made; temporary>1 may hold or not)
build_c "$WORK/partial" "$PROGS_DIR/partial_recording.c" -I"$abs_top_srcdir/include"
RUN_NAME=rp mprof_run 60 "$WORK/tp" --paused -- "$WORK/partial" resume
run_cmd 60 htmlp "$MPROF" diff -f html --fail-if 'temporary>1' -o "$WORK/dp.html" "$WORK/tp" "$WORK/tp"
expect_eq "html, undecided gate: exit status 2" 2 "$RUN_STATUS"
run_cmd 120 pagep node "$BROWSER_DIR/diff-check.mjs" verdict "$WORK/dp.html"
cat "$RUN_OUT" "$RUN_ERR"
expect_eq "html, undecided gate: the verdict" \
	"--fail-if: none held, 1 of 1 condition undecided: an upper bound cannot tell (exit status 2)" \
	"$(val gate)"
expect_eq "html, recorded in part: the temporary row says at most, the others plain" \
	"temporary (at most) peak bytes" "$(val 'label temporary') $(val 'label peak_bytes')"
expect_eq "html, recorded in part: no change between two upper bounds" "2 ; 2 ; - ; -" "$(val 'row temporary')"

# ---- sampled traces: each estimate's change has its 95% margin ----
build_c "$WORK/sm" "$PROGS_DIR/sample_margins.c"
RUN_NAME=rs1 mprof_run 60 "$WORK/ts1" --sample-rate 64K --sample-seed 1 -- "$WORK/sm" 1000 1000
RUN_NAME=rs2 mprof_run 60 "$WORK/ts2" --sample-rate 64K --sample-seed 2 -- "$WORK/sm" 1000 1000
"$MPROF" diff --format json "$WORK/ts1" "$WORK/ts2" >"$WORK/ds.json" 2>&1
run_cmd 60 htmls "$MPROF" diff -f html -o "$WORK/ds.html" "$WORK/ts1" "$WORK/ts2"
expect_eq "html, sampled: exit status 0" 0 "$RUN_STATUS"
run_cmd 120 pages node "$BROWSER_DIR/diff-check.mjs" verdict "$WORK/ds.html"
cat "$RUN_OUT" "$RUN_ERR"
for k in allocated_bytes leaked_bytes allocations; do
	expect_match "html, sampled: the $k row ends with the JSON's margin" \
		" ; ±$(json_eval "$WORK/ds.json" "'{:,}'.format(d['totals']['delta_ci95']['$k'])")( \([0-9.]+ [KM]iB\))?(: may be sampling noise)?\$" \
		"$(val "row $k")"
done
expect_match "html, sampled: peak (rough) has no margin" "% ; ?\$" "$(val 'row peak_bytes')"
# and so does each site's change in the rankings, as the text diff writes
# it ("(+528000 ±748556)"): the one site of tests/progs/sample_margins.c
# (main's), its change and margin from the JSON's "delta" and "delta_ci95"
for k in allocated_bytes allocations leaked_bytes; do
	metric=${k%_bytes}
	run_cmd 120 "ranks-$metric" node "$BROWSER_DIR/diff-check.mjs" rankings "$WORK/ds.html" "$metric"
	cat "$RUN_ERR"
	expect_eq "html, sampled, $metric: no console error, page error or request" 0 "$(val problems)"
	expect_match "html, sampled, $metric: main's row: its change, then the JSON's margin" \
		"^#1 ; $(json_eval "$WORK/ds.json" "'{:+,}'.format(site('main')[0]['delta']['$k']).replace('+', '\\\\+')") ; ±$(json_eval "$WORK/ds.json" "'{:,}'.format(site('main')[0]['delta_ci95']['$k'])")( \\([0-9.]+ [KM]iB\\))?(: may be sampling noise)? ; [-+][0-9.]+% ; " \
		"$(grep '^first=#1' "$RUN_OUT" | head -1 | cut -d= -f2-)"
done
run_cmd 120 ranks-peak node "$BROWSER_DIR/diff-check.mjs" rankings "$WORK/ds.html" peak
expect_eq "html, sampled, peak (rough): main's row has no margin" "" \
	"$(grep '^first=#1' "$RUN_OUT" | grep '±')"
expect_match "html, sampled, peak (rough): main's row ranked" "^#1 ; " \
	"$(grep '^first=#1' "$RUN_OUT" | head -1 | cut -d= -f2-)"

# a count's margin is in blocks: against a trace with no sample (16 B at
# 64K), main's 1000 blocks of 1000 B (at rate 1, every one) may hide in 3 x
# 64K bytes at most 197 times (3 x 64K / 1001, rounded up), not 196608 times
RUN_NAME=rz mprof_run 60 "$WORK/tz" --sample-rate 64K --sample-seed 5 -- "$WORK/sm" 2 8
RUN_NAME=ro mprof_run 60 "$WORK/to" --sample-rate 1 -- "$WORK/sm" 1000 1000
"$MPROF" diff --format json "$WORK/tz" "$WORK/to" >"$WORK/dz.json" 2>&1
run_cmd 60 htmlz "$MPROF" diff -f html -o "$WORK/dz.html" "$WORK/tz" "$WORK/to"
expect_eq "html, one side without a sample: exit status 0" 0 "$RUN_STATUS"
run_cmd 120 pagez node "$BROWSER_DIR/diff-check.mjs" verdict "$WORK/dz.html"
cat "$RUN_ERR"
for k in allocations leaked_blocks; do
	m=$(json_eval "$WORK/dz.json" "d['totals']['delta_ci95']['$k']")
	expect_range "json, one side without a sample: the $k margin is in blocks (B's mean size about 1 KB)" 190 197 "$m"
	expect_match "html, one side without a sample: the $k row ends with the JSON's margin, no noise" \
		" ; \\+[0-9,]+ ; new ; ±$m\$" "$(val "row $k")"
done
run_cmd 120 ranks-z node "$BROWSER_DIR/diff-check.mjs" rankings "$WORK/dz.html" allocations
cat "$RUN_ERR"
expect_match "html, one side without a sample: main's allocations row, ±197 blocks" \
	"^#1 ; \\+1,000 ; ±197 ; " "$(grep '^first=#1' "$RUN_OUT" | head -1 | cut -d= -f2-)"

# ---- no gate; errors ----
run_cmd 60 html2 "$MPROF" diff -f html -o "$WORK/d2.html" "$WORK/ta" "$WORK/tb"
expect_eq "html without --fail-if: exit status 0" 0 "$RUN_STATUS"
expect_eq "html without --fail-if: no verdict in the page's data" 1 "$(grep -c '"gate":null' "$WORK/d2.html")"
expect_eq "html with --fail-if: a verdict in the page's data" 0 "$(grep -c '"gate":null' "$WORK/d.html")"
run_cmd 60 bad "$MPROF" diff -f html -o "$WORK/no/such/dir/d.html" "$WORK/ta" "$WORK/tb"
expect_eq "-o into a missing folder: exit status 2" 2 "$RUN_STATUS"
expect_match "-o into a missing folder: one line" "^mprof.*: diff: cannot write $WORK/no/such/dir/d.html: " \
	"$(cat "$RUN_ERR")"
finish
