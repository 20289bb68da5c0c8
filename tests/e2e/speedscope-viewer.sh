#!/bin/bash
# speedscope-viewer.sh - speedscope (npm speedscope 1.25.0, offline, in
# headless chromium) loads `mprof report --format speedscope` of
# leak_count 5 with no error: the title names the program, each of the five
# profiles is shown by its name, and its sandwich view's root total is the
# JSON report's total as speedscope prints it (e.g. "9.00 KB", "106").  A broken
# file (fewer weights than samples) shows speedscope's error screen: the
# check sees the client's errors.  Round trip of the file:
# report-speedscope.sh.  Program: tests/progs/leak_count.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
require_browser
[ -f "$BROWSER_DIR/node_modules/speedscope/dist/release/index.html" ] ||
	skip "speedscope's npm package is not installed (tests/install-deps.sh)"
make_work
build_c "$WORK/leak_count" "$PROGS_DIR/leak_count.c"
mprof_run 60 "$WORK/trace" -- "$WORK/leak_count" 5
expect_eq "exit status" 0 "$RUN_STATUS"
report_json "$WORK/r.json" "$WORK/trace"
run_cmd 60 ss "$MPROF" report --format speedscope -o "$WORK/leak.speedscope.json" "$WORK/trace"
expect_eq "speedscope: exit status" 0 "$RUN_STATUS"
# the totals as speedscope prints them
run_cmd 60 expected "$PYTHON" "$E2E_DIR/dhat_check.py" speedscope "$WORK/leak.speedscope.json" "$WORK/r.json"
expect_eq "round trip" 0 "$RUN_STATUS"
EXPECTED="$WORK/expected.out"

run_cmd 120 view node "$BROWSER_DIR/speedscope-view.mjs" "$WORK/leak.speedscope.json" 5
V="$WORK/view.out"
cat "$V"
expect_eq "speedscope: exit status" 0 "$RUN_STATUS"
expect_eq "speedscope: no error, no problem" "" "$(grep -E '^(dialog|problem) ' "$V")"
expect_match "speedscope: the title names the program" '^title .*/leak_count 5 - speedscope$' "$(cat "$V")"
i=0
for name in "peak bytes" "leaked bytes" "allocated bytes" "allocations" "temporary"; do
	i=$((i + 1))
	expect_eq "profile $i: its name" "profile $i $name" "$(grep "^profile $i " "$V")"
	total=$(sed -n "s/^display $i //p" "$EXPECTED")
	expect_match "profile $i: the root's total is ours ($total)" "^total $i $total \(100%\) " "$(cat "$V")"
done

# the harness sees speedscope's errors: fewer weights than samples
"$PYTHON" -c 'import json, sys
d = json.load(open(sys.argv[1])); d["profiles"][0]["weights"].pop(); json.dump(d, open(sys.argv[2], "w"))' \
	"$WORK/leak.speedscope.json" "$WORK/bad.speedscope.json"
run_cmd 120 view-bad node "$BROWSER_DIR/speedscope-view.mjs" "$WORK/bad.speedscope.json" 1
expect_match "a broken file: speedscope's error is seen" '^problem .*Something went wrong' "$(cat "$WORK/view-bad.out")"
finish
