#!/bin/bash
# report-dhat.sh - `mprof report --format dhat` and `--format dhat-json`:
# the exact figures of leak_count 5 (100 short-lived 64-byte blocks at
# churn, 5 leaked 1024-byte blocks at leak_blocks) in both; both parsed back
# and compared with `--format json` of the same trace, every site and figure
# (dhat_check.py: tb, tbk, tl, mb, mbk, gb, gbk, eb, ebk, fs into ftbl; the
# text's blocks and their order under each --sort key, with -n); --sort's
# usage errors.  Valgrind's viewer reading the file: dhat-viewer.sh.
# Program and facts: tests/progs/leak_count.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
SRC="$PROGS_DIR/leak_count.c"
build_c "$WORK/leak_count" "$SRC"
source_line "$SRC" "/* LEAK_LINE */"
LEAK_LINE=$SOURCE_LINE
CHECK="$E2E_DIR/dhat_check.py"

mprof_run 60 "$WORK/trace" -- "$WORK/leak_count" 5
expect_eq "exit status" 0 "$RUN_STATUS"
expect_eq "stdout" "leak_count 5" "$(cat "$RUN_OUT")"
report_json "$WORK/r.json" "$WORK/trace"
SITES=$("$PYTHON" -c 'import json, sys; print(json.load(open(sys.argv[1]))["sites_total"])' "$WORK/r.json")

# ---- the text report ----
run_cmd 60 dhat "$MPROF" report --format dhat "$WORK/trace"
T="$WORK/dhat.out"
expect_eq "dhat: exit status" 0 "$RUN_STATUS"
expect_eq "dhat: stderr empty" "" "$(cat "$RUN_ERR")"
expect_match "dhat: counts exact" '^  Counts:  exact$' "$(cat "$T")"
expect_match "dhat: the command" '^  Command: .*/leak_count 5$' "$(cat "$T")"
expect_match "dhat: sorted by total bytes, every site" "^Sorted by total-bytes; $SITES program points\$" "$(cat "$T")"
LEAK=$(grep -B9 "^    at leak_blocks (leak_count.c:$LEAK_LINE)" "$T")
expect_match "leak_blocks: total" '^  Total:       5120 bytes \([0-9.]+%\) in 5 blocks \([0-9.]+%\), avg size 1024.00 bytes$' "$LEAK"
expect_match "leak_blocks: none freed" '^  Lifetime:    no block freed$' "$LEAK"
expect_match "leak_blocks: max" '^  Max:         5120 bytes in 5 blocks$' "$LEAK"
expect_match "leak_blocks: at t-end" '^  At t-end:    5120 bytes \([0-9.]+%\) in 5 blocks' "$LEAK"
expect_match "leak_blocks: at t-gmax" '^  At t-gmax:   5120 bytes \([0-9.]+%\) in 5 blocks' "$LEAK"
CHURN=$(grep -B9 '^    at churn (leak_count.c:' "$T")
expect_match "churn: total" '^  Total:       6400 bytes \([0-9.]+%\) in 100 blocks' "$CHURN"
expect_match "churn: lifetimes of 1 event" '^  Lifetime:    avg 1.0 events \(.*\), max 1 events \(.*\), over 100 blocks freed$' "$CHURN"
expect_match "churn: max live one block" '^  Max:         64 bytes in 1 blocks$' "$CHURN"
expect_match "churn: nothing at t-end" '^  At t-end:    0 bytes \(0.00%\) in 0 blocks \(0.00%\)$' "$CHURN"
expect_match "churn: all short-lived" '^  Short-lived: 100 blocks \(100.00% of its blocks\)$' "$CHURN"
run_cmd 60 check-dhat "$PYTHON" "$CHECK" dhat "$T" "$WORK/r.json"
expect_eq "dhat round trip: no difference from the JSON report" "checked $SITES sites" "$(cat "$RUN_OUT")"
for key in total-blocks max-bytes max-blocks t-gmax-bytes t-gmax-blocks t-end-bytes t-end-blocks \
	avg-lifetime max-lifetime short-lived; do
	run_cmd 60 "dhat-$key" "$MPROF" report --format dhat --sort "$key" -n 2 "$WORK/trace"
	expect_eq "--sort $key -n 2: exit status" 0 "$RUN_STATUS"
	run_cmd 60 "check-$key" "$PYTHON" "$CHECK" dhat "$WORK/dhat-$key.out" "$WORK/r.json" "$key" 2
	expect_eq "--sort $key -n 2: the two first sites by $key, as in the JSON report" \
		"checked 2 sites" "$(cat "$RUN_OUT")"
done
# leak_blocks has the most bytes at t-end
expect_eq "--sort t-end-bytes: leak_blocks first" "    at leak_blocks (leak_count.c:$LEAK_LINE) [leak_count]" \
	"$(grep -m1 '^    at ' "$WORK/dhat-t-end-bytes.out")"
expect_eq "--sort short-lived: churn first" "churn" \
	"$(grep -m1 '^    at ' "$WORK/dhat-short-lived.out" | sed 's/^    at \([a-z_]*\) .*/\1/')"

# ---- usage errors ----
run_cmd 60 badkey "$MPROF" report --format dhat --sort bytes "$WORK/trace"
expect_eq "--sort bytes: exit status 2" 2 "$RUN_STATUS"
expect_match "--sort bytes: the keys listed" "cannot sort by 'bytes' \(total-bytes, total-blocks, .*short-lived\)" "$(cat "$RUN_ERR")"
run_cmd 60 nosort "$MPROF" report --format json --sort total-bytes "$WORK/trace"
expect_eq "--sort with json: exit status 2" 2 "$RUN_STATUS"
expect_match "--sort with json: refused" "format json takes no --sort" "$(cat "$RUN_ERR")"

# ---- DHAT's JSON ----
run_cmd 60 dhatjson "$MPROF" report --format dhat-json -o "$WORK/t.dhat.json" "$WORK/trace"
D="$WORK/t.dhat.json"
expect_eq "dhat-json: exit status" 0 "$RUN_STATUS"
jd() {
	"$PYTHON" -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(eval(sys.argv[2]))' "$D" "$1" 2>&1
}
expect_eq "dhat-json: version, mode, lifetimes without accesses" "2 heap True False events" \
	"$(jd '" ".join(map(str, (d["dhatFileVersion"], d["mode"], d["bklt"], d["bkacc"], d["tu"])))')"
expect_eq "dhat-json: leak_blocks' program point" "5120 5 0 5120 5 5120 5 5120 5" \
	"$(jd '" ".join(str(p[k]) for p in d["pps"] if d["ftbl"][p["fs"][0]].startswith("leak_blocks (") for k in ("tb","tbk","tl","mb","mbk","gb","gbk","eb","ebk"))')"
expect_eq "dhat-json: churn's (tl: 100 lifetimes of 1 event)" "6400 100 100 64 1 0 0 0 0" \
	"$(jd '" ".join(str(p[k]) for p in d["pps"] if d["ftbl"][p["fs"][0]].startswith("churn (") for k in ("tb","tbk","tl","mb","mbk","gb","gbk","eb","ebk"))')"
expect_eq "dhat-json: leak_blocks' frame" "leak_blocks (leak_count.c:$LEAK_LINE)" \
	"$(jd '[f for f in d["ftbl"] if f.startswith("leak_blocks")][0]')"
run_cmd 60 check-json "$PYTHON" "$CHECK" dhat-json "$D" "$WORK/r.json"
cat "$RUN_OUT"
expect_eq "dhat-json round trip: no difference from the JSON report" "checked $SITES sites" "$(cat "$RUN_OUT")"
# the check can fail: one byte more in a program point
sed 's/"tb":5120,/"tb":5121,/' "$D" >"$WORK/bad.dhat.json"
run_cmd 60 check-bad "$PYTHON" "$CHECK" dhat-json "$WORK/bad.dhat.json" "$WORK/r.json"
expect_eq "a program point changed: the round trip fails" 1 "$RUN_STATUS"
finish
