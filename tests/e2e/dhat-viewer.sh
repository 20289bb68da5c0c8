#!/bin/bash
# dhat-viewer.sh - Valgrind's own DHAT viewer (dh_view.html from Debian's
# valgrind package, in headless chromium) loads `mprof report --format
# dhat-json` of leak_count 5 with no error and shows our totals: its root
# "Total:" bytes and blocks are the JSON report's allocated bytes and
# allocations, its Command ours; every sort metric it allows redisplays
# without an error, and the access-based ones are disabled (bkacc false).
# A file with a repeated program point shows the viewer's error: the check
# sees the client's errors.  Round trip of the file: report-dhat.sh.
# Program: tests/progs/leak_count.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
DH_VIEW=/usr/libexec/valgrind/dh_view.html
[ -f "$DH_VIEW" ] || skip "Valgrind's DHAT viewer is not installed ($DH_VIEW, apt package valgrind)"
require_browser
make_work
build_c "$WORK/leak_count" "$PROGS_DIR/leak_count.c"
mprof_run 60 "$WORK/trace" -- "$WORK/leak_count" 5
expect_eq "exit status" 0 "$RUN_STATUS"
report_json "$WORK/r.json" "$WORK/trace"
run_cmd 60 dhatjson "$MPROF" report --format dhat-json -o "$WORK/leak.dhat.json" "$WORK/trace"
expect_eq "dhat-json: exit status" 0 "$RUN_STATUS"

run_cmd 120 view node "$BROWSER_DIR/dhat-view.mjs" "$WORK/leak.dhat.json" "$DH_VIEW"
V="$WORK/view.out"
cat "$V"
expect_eq "viewer: exit status" 0 "$RUN_STATUS"
expect_eq "viewer: no error, no problem" "" "$(grep -E '^(error|problem) ' "$V")"
expect_eq "viewer: the title names the file" "title DHAT Viewer - leak.dhat.json - Total (blocks)" \
	"$(grep '^title ' "$V")"
expect_eq "viewer: total bytes = the JSON report's allocated bytes" \
	"total_bytes $(q "$WORK/r.json" summary allocated_bytes)" "$(grep '^total_bytes ' "$V")"
expect_eq "viewer: total blocks = the JSON report's allocations" \
	"total_blocks $(q "$WORK/r.json" summary allocations)" "$(grep '^total_blocks ' "$V")"
expect_match "viewer: the command" '^command .*/leak_count 5$' "$(cat "$V")"
# DHAT's menu: 6 sort metrics without access data, 8 that need it
expect_eq "viewer: every allowed sort metric shows the tree" "sort_ok 6" "$(grep '^sort_ok ' "$V")"
expect_eq "viewer: the access metrics are disabled" "sort_disabled 8" "$(grep '^sort_disabled ' "$V")"

# the harness sees the viewer's errors: a program point repeated
"$PYTHON" -c 'import json, sys
d = json.load(open(sys.argv[1])); d["pps"].append(d["pps"][0]); json.dump(d, open(sys.argv[2], "w"))' \
	"$WORK/leak.dhat.json" "$WORK/repeated.dhat.json"
run_cmd 120 view-bad node "$BROWSER_DIR/dhat-view.mjs" "$WORK/repeated.dhat.json" "$DH_VIEW"
expect_match "a repeated program point: the viewer's error is seen" \
	'^error Error: data file contains a repeated location' "$(cat "$WORK/view-bad.out")"
finish
