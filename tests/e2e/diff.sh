#!/bin/bash
# diff.sh - `mprof-analyze diff A B` (mprof diff): the same program profiled
# with 1 and with 4 leaked blocks differs by exactly 3 blocks / 3072 bytes at
# the leaking function and nowhere else (its sites match across runs); a
# trace diffed against itself prints "no difference" and JSON "sites": [];
# documented exit status 2 for unreadable input and usage errors.
# Program and facts: tests/progs/leak_count.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
[ -x "$MPROF_ANALYZE" ] || skip "mprof-analyze not built ($MPROF_ANALYZE)"
make_work
SRC="$PROGS_DIR/leak_count.c"
build_c "$WORK/leak_count" "$SRC"
source_line "$SRC" "/* LEAK_LINE */"
LEAK_LINE=$SOURCE_LINE

RUN_NAME=run1 mprof_run 60 "$WORK/t1" -- "$WORK/leak_count" 1
expect_eq "run 1: exit status" 0 "$RUN_STATUS"
expect_eq "run 1: stdout" "leak_count 1" "$(cat "$RUN_OUT")"
RUN_NAME=run4 mprof_run 60 "$WORK/t4" -- "$WORK/leak_count" 4
expect_eq "run 4: exit status" 0 "$RUN_STATUS"
expect_eq "run 4: stdout" "leak_count 4" "$(cat "$RUN_OUT")"

# jq-like one-liners over the diff JSON: jd FILE PYTHON_EXPRESSION (d = the object)
jd() {
	"$PYTHON" -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(eval(sys.argv[2]))' "$1" "$2" 2>&1
}

# ---- 1 leaked block vs 4: text ----
run_cmd 60 diff14 "$MPROF_ANALYZE" diff --metric leaked "$WORK/t1" "$WORK/t4"
T="$WORK/diff14.out"
expect_eq "diff 1 vs 4: exit status" 0 "$RUN_STATUS"
expect_eq "diff 1 vs 4: stderr empty" "" "$(cat "$RUN_ERR")"
expect_match "totals: leaked blocks +3" '^  leaked blocks +[0-9]+ +[0-9]+ +\+3 +\+[0-9.]+%$' "$(cat "$T")"
expect_match "totals: leaked bytes +3072" '^  leaked bytes +[0-9]+ +[0-9]+ +\+3072 +\+[0-9.]+%$' "$(cat "$T")"
expect_match "totals: allocations +3" '^  allocations +[0-9]+ +[0-9]+ +\+3 +\+[0-9.]+%$' "$(cat "$T")"
expect_match "totals: temporary unchanged" '^  temporary +100 +100 +0 +\+0.0%$' "$(cat "$T")"
expect_match "totals: peak RSS of both" '^  peak RSS +[1-9][0-9]+ +[1-9][0-9]+ ' "$(cat "$T")"
expect_match "one site changed, none new or vanished" \
	'^sites: +1 changed, 0 new, 0 vanished, [0-9]+ same' "$(cat "$T")"
expect_no_match "no 'no difference'" '^no difference$' "$(cat "$T")"
# the leaked ranking's first site is leak_blocks with the exact change
LEAKED=$(sed -n '/^== Grown in leaked bytes: top 1 of 1 /,/^== Shrunk/p' "$T")
expect_match "leaked ranking: one site" '^== Grown in leaked bytes: top 1 of 1 sites$' "$LEAKED"
expect_match "nothing shrank" '^== Shrunk: no site shrank in leaked bytes$' "$(cat "$T")"
expect_match "leaked ranking: +3072 bytes in +3 blocks" \
	'^    leaked bytes 1024 -> 4096 \(\+3072\); leaked blocks 1 -> 4 \(\+3\); temporary 0 -> 0 \(0\)$' \
	"$LEAKED"
expect_match "leaked ranking: allocated +3072 in +3 allocations" \
	'^    allocated bytes 1024 -> 4096 \(\+3072\); allocations 1 -> 4 \(\+3\)$' "$LEAKED"
expect_eq "leaked ranking: innermost frame" \
	"    at leak_blocks (leak_count.c:$LEAK_LINE) [leak_count]" \
	"$(printf '%s\n' "$LEAKED" | grep -m1 '^    at ')"

# ---- the same, JSON ----
run_cmd 60 diff14j "$MPROF_ANALYZE" diff --format json "$WORK/t1" "$WORK/t4"
J="$WORK/diff14j.out"
expect_eq "json diff 1 vs 4: exit status" 0 "$RUN_STATUS"
expect_eq "json: schema" "mprof-diff $(schema_version DIFF_JSON_SCHEMA_VERSION)" "$(jd "$J" 'd["schema"], d["schema_version"]' | tr -d "(),'")"
run_cmd 60 diffhelp "$MPROF" diff --help
expect_match "--help names the schema version the JSON carries" \
	"schema mprof-diff $(jd "$J" 'd["schema_version"]')\)" "$(cat "$RUN_OUT")"
expect_eq "json: a and b" "$WORK/t1 $WORK/t4" "$(jd "$J" 'd["a"] + " " + d["b"]')"
expect_eq "json: totals delta leaked blocks/bytes" "3 3072" \
	"$(jd "$J" '"%d %d" % (d["totals"]["delta"]["leaked_blocks"], d["totals"]["delta"]["leaked_bytes"])')"
expect_eq "json: totals b - a = delta for every number" True \
	"$(jd "$J" 'all(d["totals"]["b"][k] - d["totals"]["a"][k] == v for k, v in d["totals"]["delta"].items())')"
expect_eq "json: matched by function" function "$(jd "$J" 'd["match"]')"
expect_eq "json: only one site differs" 1 "$(jd "$J" 'len(d["sites"])')"
expect_eq "json: its status" changed "$(jd "$J" 'd["sites"][0]["status"]')"
expect_eq "json: its innermost frame" "leak_blocks $LEAK_LINE" \
	"$(jd "$J" 'd["sites"][0]["frames"][0]["function"] + " " + str(d["sites"][0]["frames"][0]["line"])')"
expect_eq "json: its delta (allocations bytes leaked_blocks leaked_bytes)" "3 3072 3 3072" \
	"$(jd "$J" '" ".join(str(d["sites"][0]["delta"][k]) for k in ("allocations", "allocated_bytes", "leaked_blocks", "leaked_bytes"))')"
expect_eq "json: its a and b leaked blocks" "1 4" \
	"$(jd "$J" '"%d %d" % (d["sites"][0]["a"]["leaked_blocks"], d["sites"][0]["b"]["leaked_blocks"])')"

# ---- reversed: negative deltas ----
run_cmd 60 diff41j "$MPROF_ANALYZE" diff -f json "$WORK/t4" "$WORK/t1"
expect_eq "json diff 4 vs 1: leaked delta" "-3 -3072" \
	"$(jd "$WORK/diff41j.out" '"%d %d" % (d["sites"][0]["delta"]["leaked_blocks"], d["sites"][0]["delta"]["leaked_bytes"])')"

# ---- a trace against itself ----
run_cmd 60 self "$MPROF_ANALYZE" diff "$WORK/t4" "$WORK/t4"
expect_eq "self diff: exit status" 0 "$RUN_STATUS"
expect_eq "self diff: 'no difference' on its own line" 1 "$(grep -c '^no difference$' "$RUN_OUT")"
expect_match "self diff: every site the same" '^sites: +0 changed, 0 new, 0 vanished, [1-9][0-9]* same' \
	"$(cat "$RUN_OUT")"
run_cmd 60 selfj "$MPROF_ANALYZE" diff --format json "$WORK/t4" "$WORK/t4"
expect_eq "self diff json: exit status" 0 "$RUN_STATUS"
expect_eq "self diff json: sites is []" "[]" "$(jd "$RUN_OUT" 'json.dumps(d["sites"])')"
expect_eq "self diff json: totals delta all 0" True \
	"$(jd "$RUN_OUT" 'set(d["totals"]["delta"].values()) == {0}')"

# ---- two runs with the same argument match every site ----
RUN_NAME=run4b mprof_run 60 "$WORK/t4b" -- "$WORK/leak_count" 4
run_cmd 60 same "$MPROF_ANALYZE" diff "$WORK/t4" "$WORK/t4b"
expect_eq "two runs of the same input: 'no difference'" 1 "$(grep -c '^no difference$' "$RUN_OUT")"

# ---- errors ----
run_cmd 30 missing "$MPROF_ANALYZE" diff "$WORK/t1" "$WORK/no-such-trace"
expect_eq "missing trace: exit status 2" 2 "$RUN_STATUS"
expect_match "missing trace: message names it" '^mprof-analyze: .*no-such-trace' "$(cat "$RUN_ERR")"
run_cmd 30 onearg "$MPROF_ANALYZE" diff "$WORK/t1"
expect_eq "one trace only: exit status 2" 2 "$RUN_STATUS"
run_cmd 30 badopt "$MPROF_ANALYZE" diff --format xml "$WORK/t1" "$WORK/t4"
expect_eq "unknown format: exit status 2" 2 "$RUN_STATUS"
finish
