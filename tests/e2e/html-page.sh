#!/bin/bash
# tests/e2e/html-page.sh - `mprof report --html`: one self-contained page
# that loads from file:// in headless chromium with no console error and no
# network request, whose data and cards equal the JSON report's, whose
# tables rank the sites of each metric (a click on a tab switches them, a
# click on a row opens its stack), whose flamegraph shows each metric's
# total when its tab is clicked, and whose screenshot is not blank.
# Program and facts: tests/progs/leak_count.c (N x 1024 B leaked in
# leak_blocks, 100 x 64 B churned).
source "$(dirname "$0")/lib.sh"
require_mprof
require_browser
make_work
build_c "$WORK/leak_count" "$PROGS_DIR/leak_count.c"

mprof_run 60 "$WORK/trace" -- "$WORK/leak_count" 7
expect_eq "exit status" 0 "$RUN_STATUS"
expect_match "mprof run prints the command that makes the page" \
	"a page to look at it: $MPROF_HINT report --html $WORK/trace.html $WORK/trace\$" \
	"$(cat "$RUN_ERR")"
report_json "$WORK/r.json" "$WORK/trace"
run_cmd 60 html "$MPROF" report --html "$WORK/page.html" "$WORK/trace"
expect_eq "report --html: exit status" 0 "$RUN_STATUS"
expect_eq "report --html: nothing on stdout" "" "$(cat "$RUN_OUT")"
expect_match "the page is one file: no src= or href= to anything" "^0$" \
	"$(grep -ciE '(src|href)=' "$WORK/page.html")"

run_cmd 120 page node "$BROWSER_DIR/report-page.mjs" "$WORK/page.html" "$WORK/page.png"
cat "$RUN_OUT"
[ -s "$RUN_ERR" ] && head -20 "$RUN_ERR"
v() { sed -n "s/^$1=//p" "$RUN_OUT"; }
expect_eq "page: node exit status" 0 "$RUN_STATUS"
expect_eq "page: no console error, page error or network request" none "$(v problems)"
expect_eq "page: title" "mprof: leak_count" "$(v title)"
expect_eq "page: heading is the command line" "$WORK/leak_count 7" "$(v h1)"
expect_eq "page: data = JSON allocations" "$(q "$WORK/r.json" get summary.allocations)" "$(v 'data allocations')"
expect_eq "page: data = JSON sites" "$(q "$WORK/r.json" len sites)" "$(v 'data sites')"
# the page's units: B below 1 KiB, else one decimal, as the text report's
kib() { awk -v b="$1" 'BEGIN { if (b < 1024) printf "%d B", b; else printf "%.1f KiB", b / 1024 }'; }
share() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f%%", 100 * a / b }'; }
leaked=$(q "$WORK/r.json" get summary.leaked_bytes)
allocs=$(q "$WORK/r.json" get summary.allocations)
source_line "$PROGS_DIR/leak_count.c" "LEAK_LINE"
leak_line=$SOURCE_LINE
expect_eq "page: leaked card" "$(kib "$leaked")" "$(v 'card leaked (live at exit)')"
expect_eq "page: allocations card" "$(q "$WORK/r.json" get summary.allocations)" "$(v 'card allocations' | tr -d ,)"
# leaked: the 7 blocks of leak_blocks first (the C library's stdout
# buffer is the rest), with their share of the leaked bytes
expect_eq "page: leaked table, first row" \
	"#1 ; 7.0 KiB ; $(share 7168 "$leaked") ; 7 ; leak_blocks | leak_count.c:$leak_line [leak_count]" \
	"$(v 'table leaked')"
# ranked by allocations, the churn's 100 calls first, and beside them its
# allocated bytes (100 x 64 B), not its allocations a second time
expect_match "page: allocations table, first row is the churn" \
	"^#1 ; 100 ; $(share 100 "$allocs") ; 6\\.3 KiB ; churn \\| leak_count.c:[0-9]+ \\[leak_count\\]\$" \
	"$(v 'table allocations')"
expect_match "page: a click on a row opens its stack (leak_blocks, main, ...)" "^[3-9]$|^[1-9][0-9]+$" \
	"$(v 'stack leaked')"
for m in peak:summary.peak.bytes leaked:summary.leaked_bytes allocated:summary.allocated_bytes \
	allocations:summary.allocations temporary:summary.temporary; do
	expect_eq "page: the ${m%%:*} flamegraph's total = JSON ${m#*:}" \
		"$(q "$WORK/r.json" get "${m#*:}")" "$(v "flame ${m%%:*}")"
done
expect_eq "page: the screenshot is not blank" true "$(v notblank)"
finish
