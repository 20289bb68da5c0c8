#!/bin/bash
# diff-sample-margins.sh - `mprof diff` of sampled traces gives each change
# of an estimate its 95% margin (the two runs' variance estimates added):
# in the text totals and sites, in JSON ("delta_ci95"), and in the gate's
# message, which says when the condition does not hold across the margin.
# - Coverage: the same program (tests/progs/sample_margins.c, 1000 blocks of
#   1000 B, half live at exit) at --sample-rate 64K, 12 pairs of seeds: the
#   true change is 0, and the stated margins of the allocated and leaked
#   bytes cover it in at least 19 of the 24 (95% nominal).
# - Each margin agrees with the two reports' own (sqrt(a^2 + b^2), within
#   rounding), and the text shows the JSON's numbers.
# - A real change (1000 -> 8000 blocks) held by --fail-if without the
#   noise clause; a change of 0 held by 'allocated>+0%'-style conditions
#   with it; exit status 1 either way (the verdict is the estimate's).
# - No sample on either side: no change and no "±0".
# - No sample on one side: its bytes may hold up to 3 sampling intervals,
#   its counts the blocks those hide at the other side's mean size (not 3
#   intervals' worth of bytes read as a count).
# - Exact traces: no "±" in the text, every margin 0.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/sm" "$PROGS_DIR/sample_margins.c"
jd() { json_eval "$@"; }

# --- coverage: 12 pairs of runs of one program, the truth a change of 0 ---
for seed in $(seq 1 24); do
	RUN_NAME=r$seed mprof_run 60 "$WORK/s$seed" --sample-rate 64K --sample-seed "$seed" -- \
		"$WORK/sm" 1000 1000
done
covered=0 noise_said=0 noise_due=0
for pair in $(seq 1 12); do
	a=$((2 * pair - 1)) b=$((2 * pair))
	"$MPROF" diff --format json "$WORK/s$a" "$WORK/s$b" >"$WORK/d$pair.json" 2>"$WORK/d$pair.err"
	"$MPROF" diff "$WORK/s$a" "$WORK/s$b" >"$WORK/d$pair.txt" 2>&1
	n=$(jd "$WORK/d$pair.json" 'sum(abs(d["totals"]["delta"][k]) <= d["totals"]["delta_ci95"][k] for k in ("allocated_bytes", "leaked_bytes"))')
	covered=$((covered + n))
	# the text says "may be sampling noise" exactly where the JSON's margin covers the change
	noise_due=$((noise_due + n))
	noise_said=$((noise_said + $(grep -cE '^  (allocated|leaked) bytes .*: may be sampling noise$' "$WORK/d$pair.txt")))
done
echo "note: $covered of 24 margins cover the true change of 0"
expect_range "margins covering the true change (0), of 24" 19 24 "$covered"
expect_eq "text: 'may be sampling noise' where the margin covers the change" "$noise_due" "$noise_said"

# --- one pair in detail: the margins against the reports' own ---
report_json "$WORK/ra.json" "$WORK/s1"
report_json "$WORK/rb.json" "$WORK/s2"
for k in allocated_bytes allocations leaked_bytes leaked_blocks; do
	ka=$(jd "$WORK/ra.json" "d['summary']['${k}_ci95']")
	kb=$(jd "$WORK/rb.json" "d['summary']['${k}_ci95']")
	m=$(jd "$WORK/d1.json" "d['totals']['delta_ci95']['$k']")
	expect_true "json: $k's margin $m is sqrt($ka^2 + $kb^2) within rounding" \
		"$PYTHON" -c "import sys; sys.exit(abs($m - ($ka**2 + $kb**2) ** 0.5) > 2)"
done
expect_eq "json: no margin for what has no estimate (peak, temporary)" "None None None" \
	"$(jd "$WORK/d1.json" 'd["totals"]["delta_ci95"]["peak_bytes"], d["totals"]["delta_ci95"]["temporary"], d["totals"]["delta_ci95"]["peak_blocks"]' | tr -d '(),')"
expect_eq "json: schema" "mprof-diff $(schema_version DIFF_JSON_SCHEMA_VERSION)" \
	"$(jd "$WORK/d1.json" 'd["schema"] + " " + str(d["schema_version"])')"
m=$(jd "$WORK/d1.json" 'd["totals"]["delta_ci95"]["allocated_bytes"]')
expect_match "text: the allocated bytes' row ends with the JSON's margin" \
	"^  allocated bytes +[0-9]+ +[0-9]+ +[-+]?[0-9]+ +[-+0-9.]+% +±$m(: may be sampling noise)?\$" \
	"$(grep '^  allocated bytes' "$WORK/d1.txt")"
sm=$(jd "$WORK/d1.json" '[s for s in d["sites"] if s["frames"] and s["frames"][0]["function"] == "main"][0]["delta_ci95"]["allocated_bytes"]')
expect_match "text: main's site gives its change with its margin" \
	"allocated bytes [0-9]+ -> [0-9]+ \\([-+]?[0-9]+ ±$sm\\)" "$(cat "$WORK/d1.txt")"
expect_match "text: the note says what ± is" \
	"^note: ±N after a change is its 95% margin" "$(cat "$WORK/d1.txt")"
expect_match "text: peak stays rough, no margin" "^  peak bytes .* rough\$" \
	"$(grep '^  peak bytes' "$WORK/d1.txt")"

# --- no samples on either side: no change, no margin to give ---
for seed in 5 6; do
	RUN_NAME=z$seed mprof_run 60 "$WORK/z$seed" --sample-rate 64K --sample-seed "$seed" -- "$WORK/sm" 2 8
done
"$MPROF" diff "$WORK/z5" "$WORK/z6" >"$WORK/z.txt" 2>&1
"$MPROF" diff --format json "$WORK/z5" "$WORK/z6" >"$WORK/z.json" 2>&1
if [ "$(jd "$WORK/z.json" 'd["totals"]["a"]["leaked_bytes"] + d["totals"]["b"]["leaked_bytes"]')" = 0 ]; then
	expect_match "no samples live on either side: the leaked row has no margin" \
		"^  leaked bytes +0 +0 +0 +0\\.0%\$" "$(grep '^  leaked bytes' "$WORK/z.txt")"
else
	fail_ "a 16-byte program at 64K leaves no sample live" "$(grep '^  leaked bytes' "$WORK/z.txt")"
fi

# --- no sample on one side only: that side may hold up to 3 sampling
# intervals (its report's "under"), so the change's margin is that, not 0;
# for a count, the blocks 3 intervals hide at the other side's mean size s,
# 3 x 64K / (s + 1) rounded up: main's 1000 blocks of 1000 B, 197 ---
RUN_NAME=one mprof_run 60 "$WORK/one" --sample-rate 1 -- "$WORK/sm" 1000 1000
"$MPROF" diff "$WORK/z5" "$WORK/one" >"$WORK/zo.txt" 2>&1
"$MPROF" diff --format json "$WORK/z5" "$WORK/one" >"$WORK/zo.json" 2>&1
# the totals' count bounds from B's totals (stdio's buffer is in them)
count_bound() {
	jd "$WORK/zo.json" "-(-196608 * d['totals']['b']['$1'] // (d['totals']['b']['$2'] + d['totals']['b']['$1']))"
}
ta=$(count_bound allocations allocated_bytes)
tl=$(count_bound leaked_blocks leaked_bytes)
expect_range "one side without a sample: the allocations' bound, at B's mean size (about 1 KB)" 190 197 "$ta"
expect_eq "one side without a sample: the JSON margins are its bound, 3 x 64K bytes and the blocks they hide" \
	"196608 $ta 196608 $tl" \
	"$(jd "$WORK/zo.json" '" ".join(str(d["totals"]["delta_ci95"][k]) for k in ("allocated_bytes", "allocations", "leaked_bytes", "leaked_blocks"))')"
expect_match "one side without a sample: the text's leaked row says the bound" \
	"^  leaked bytes +0 +50[0-9]{4} +\\+50[0-9]{4} +new +±196608\$" "$(grep '^  leaked bytes' "$WORK/zo.txt")"
expect_match "one side without a sample: 1000 allocations are well outside the bound, no noise" \
	"^  allocations +0 +10[0-9]{2} +\\+10[0-9]{2} +new +±$ta\$" "$(grep '^  allocations' "$WORK/zo.txt")"
expect_match "one side without a sample: the leaked blocks' row, in blocks" \
	"^  leaked blocks +0 +5[0-9]{2} +\\+5[0-9]{2} +new +±$tl\$" "$(grep '^  leaked blocks' "$WORK/zo.txt")"
expect_eq "one side without a sample: main's site (in B only) has the bound as its margins, its counts' in blocks" \
	"196608 197 196608 197" \
	"$(jd "$WORK/zo.json" '" ".join(str([s for s in d["sites"] if s["frames"] and s["frames"][0]["function"] == "main"][0]["delta_ci95"][k]) for k in ("allocated_bytes", "allocations", "leaked_bytes", "leaked_blocks"))')"
expect_match "one side without a sample: main's site's text margin" \
	"allocated bytes 0 -> 10[0-9]{5} \\(\\+10[0-9]{5} ±196608\\); allocations 0 -> 1000 \\(\\+1000 ±197\\)" "$(cat "$WORK/zo.txt")"
expect_match "one side without a sample: main's leaked blocks in the text" \
	"leaked blocks 0 -> 500 \\(\\+500 ±197\\)" "$(cat "$WORK/zo.txt")"
# stdio's one buffer of 4096 B: 48 such blocks hide in 3 x 64K
expect_match "one side without a sample: a site of one 4096 B block, margin 48 blocks" \
	"allocations 0 -> 1 \\(\\+1 ±48\\)" "$(cat "$WORK/zo.txt")"
run_cmd 60 gzc "$MPROF" diff -n 0 --fail-if 'allocations>+500' "$WORK/z5" "$WORK/one"
expect_match "one side without a sample: the gate on allocations says the bound in blocks, no noise clause" \
	"condition held: allocations>\\+500: allocations 0 -> 10[0-9]{2} .*; sampled: the change's 95% margin ±$ta\$" \
	"$(grep 'condition held' "$RUN_ERR")"
run_cmd 60 gzo "$MPROF" diff -n 0 --fail-if 'leaked>+0' "$WORK/z5" "$WORK/one"
expect_match "one side without a sample: the gate says the bound" \
	"condition held: leaked>\\+0: leaked bytes 0 -> 50[0-9]{4} .*; sampled: the change's 95% margin ±196608\$" \
	"$(grep 'condition held' "$RUN_ERR")"

# --- the gate: a real change and a change within the noise ---
RUN_NAME=big mprof_run 60 "$WORK/big" --sample-rate 64K --sample-seed 99 -- "$WORK/sm" 8000 1000
run_cmd 60 gbig "$MPROF" diff -n 0 --fail-if 'allocated>+100%' "$WORK/s1" "$WORK/big"
expect_eq "gate on a real change: status 1" 1 "$RUN_STATUS"
mb=$(timeout 60 "$MPROF" diff --format json "$WORK/s1" "$WORK/big" | "$PYTHON" -c 'import json,sys; print(json.load(sys.stdin)["totals"]["delta_ci95"]["allocated_bytes"])')
expect_match "gate on a real change: the change's margin, no noise clause" \
	"condition held: allocated>\\+100%: allocated bytes [0-9]+ -> [0-9]+ \\(\\+[0-9]+, \\+[0-9.]+%\\); sampled: the change's 95% margin ±$mb\$" \
	"$(grep 'condition held' "$RUN_ERR")"
# a pair whose change is within its margin and in the direction the condition tests
pick=$(for pair in $(seq 1 12); do jd "$WORK/d$pair.json" '"%d %d" % (d["totals"]["delta"]["allocated_bytes"], d["totals"]["delta_ci95"]["allocated_bytes"])' | sed "s/^/$pair /"; done |
	awk '$2 > 0 && $2 <= $3 { print $1; exit }')
if [ -n "$pick" ]; then
	a=$((2 * pick - 1)) b=$((2 * pick))
	run_cmd 60 gnoise "$MPROF" diff -n 0 --fail-if 'allocated>0' "$WORK/s$a" "$WORK/s$b"
	expect_eq "gate within the noise: status 1 (the estimate's verdict)" 1 "$RUN_STATUS"
	expect_match "gate on B's figure: B's margin, no clause (B is far above 0)" \
		"condition held: allocated>0: .*; sampled: B's 95% margin ±[0-9]+\$" "$(grep 'condition held' "$RUN_ERR")"
	run_cmd 60 gnoise2 "$MPROF" diff -n 0 --fail-if 'allocated>+0' "$WORK/s$a" "$WORK/s$b"
	expect_match "gate on the change within the noise: the noise clause" \
		"condition held: allocated>\\+0: .*; sampled: the change's 95% margin ±[0-9]+, across which the condition does not hold throughout: sampling alone may have made it hold\$" \
		"$(grep 'condition held' "$RUN_ERR")"
	run_cmd 60 gsite "$MPROF" diff -n 0 --fail-if 'site:allocated>+0' "$WORK/s$a" "$WORK/s$b"
	expect_match "site: gate within the noise: the site's line has its margin and the clause" \
		"^    allocated bytes .* at main \\(sample_margins.c:[0-9]+\\); sampled: the change's 95% margin ±[0-9]+, across which" \
		"$(cat "$RUN_ERR")"
else
	fail_ "a pair of seeds grew within its margin" "none of 12 did: $(cat "$WORK"/d*.json | head -c 300)"
fi

# --- exact traces: unchanged, margins 0 ---
RUN_NAME=e1 mprof_run 60 "$WORK/e1" -- "$WORK/sm" 1000 1000
RUN_NAME=e2 mprof_run 60 "$WORK/e2" -- "$WORK/sm" 2000 1000
"$MPROF" diff "$WORK/e1" "$WORK/e2" >"$WORK/e.txt" 2>&1
"$MPROF" diff --format json "$WORK/e1" "$WORK/e2" >"$WORK/e.json" 2>&1
expect_eq "exact: no ± in the text" 0 "$(grep -c '±' "$WORK/e.txt")"
expect_eq "exact: every margin 0" "0 0 0 0 0 0 0" \
	"$(jd "$WORK/e.json" '" ".join(str(v) for v in d["totals"]["delta_ci95"].values())')"
run_cmd 60 ge "$MPROF" diff -n 0 --fail-if 'allocated>+0' "$WORK/e1" "$WORK/e2"
expect_no_match "exact: the gate's message has no margin" "sampled" "$(cat "$RUN_ERR")"
finish
