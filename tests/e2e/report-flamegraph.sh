#!/bin/bash
# report-flamegraph.sh - `mprof report --format flamegraph` writes one page
# that works offline: from file:// in headless chromium it loads with no
# console error and no request off the machine; its search finds route_a
# and shows route_a's share of the allocated bytes as the JSON report has
# it; a click on route_a zooms it to the full width; the inverted view puts
# the allocating function (leaf) right under the root, at the top; the
# screenshots are not blank.  The program and the trace sit in a folder
# named "x</script>" with U+2028 in the trace's name: the embedded data
# must not end its <script> element or break its line there.
# Program and facts: tests/progs/shared_site.c (route_a: 1000 x 100 bytes,
# route_b: 1000 x 200 bytes, both through leaf).
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
require_browser
make_work
DIR="$WORK/x</script>"
LS=$(printf '\342\200\250')
mkdir -p "$DIR" || hard_error "cannot create $DIR"
build_c "$DIR/shared_site" "$PROGS_DIR/shared_site.c"
TRACE="$DIR/t${LS}x.trace"
mprof_run 60 "$TRACE" -- "$DIR/shared_site"
expect_eq "exit status" 0 "$RUN_STATUS"
report_json "$WORK/r.json" "$TRACE"
R="$WORK/r.json"

run_cmd 60 page "$MPROF" report --format flamegraph --metric allocated -o "$WORK/fg.html" "$TRACE"
expect_eq "flamegraph: exit status" 0 "$RUN_STATUS"
expect_eq "flamegraph: no message" "" "$(cat "$RUN_ERR")"
expect_no_match "the page names no outside resource" '(src|href)="?(https?:)?//' \
	"$(grep -Eo '(src|href)="?[^ >]*' "$WORK/fg.html")"
expect_eq "the page has one </script> per script element" 2 "$(grep -o '</script>' "$WORK/fg.html" | wc -l)"

run_cmd 120 check node "$BROWSER_DIR/flamegraph-check.mjs" "$WORK/fg.html" route_a "$WORK/shot"
cat "$RUN_OUT" "$RUN_ERR"
val() { grep "^$1=" "$RUN_OUT" | head -1 | cut -d= -f2-; }
expect_eq "browser check: exit status" 0 "$RUN_STATUS"
expect_eq "no console error, page error or request" 0 "$(val problems)"
total=$(q "$R" summary allocated_bytes)
route_a=$(q "$R" sum allocated_bytes route_a)
expect_eq "route_a's allocated bytes (tests/progs/shared_site.c)" 100000 "$route_a"
expect_eq "the page's total = the JSON report's allocated bytes" "$total" "$(val total)"
expect_eq "the embedded trace path survives" "$TRACE" "$(val trace)"
expect_match "the embedded program survives (quoted by mprof run)" "^'$WORK/x</script>/shared_site'\$" "$(val program)"
expect_eq "the embedded executable's name" shared_site "$(val exe)"
expect_match "the header says which metric, of which program" "^allocated bytes of .*x</script>/shared_site'$" "$(val h1)"
expect_match "the header says which trace, and exact" "trace .*t.x\.trace \(pid [0-9]+\).*exact: every allocation recorded" "$(val header)"
expect_match "the title says which metric" "^allocated bytes: .*x</script>/shared_site' - mprof flame graph$" "$(val title)"
expect_eq "search: matched value = route_a's" "$route_a" "$(val matched_value)"
expect_eq "search: of the total" "$total" "$(val matched_total)"
share=$("$PYTHON" -c 'import sys; print("%.1f" % (100 * int(sys.argv[1]) / int(sys.argv[2])))' \
	"$route_a" "$total")
expect_eq "search: the matched share as shown" \
	"matched $share% of $("$PYTHON" -c 'import sys; print("%.1f" % (int(sys.argv[1]) / 1024))' "$total") KiB" \
	"$(val matched_text)"
expect_eq "search: one frame highlighted" 1 "$(val matched_frames)"
expect_eq "route_a has a frame on the page" 1 "$(val frame_found)"
expect_eq "click: route_a fills the width" 1 "$(val zoom_fills)"
expect_match "click: the path to route_a is shown" "main › route_a \($share% of all\)$" "$(val zoom_crumb)"
expect_match "tooltip: value, allocations and file:line" \
	"^route_a.*shared_site\.c:[0-9]+ \[shared_site\]100,000 B \(97\.7 KiB\) allocated$share% of all.*1,000 allocations$" \
	"$(val tooltip)"
expect_eq "callers view: the root is the lowest row" 1 "$(val callers_root_at_bottom)"
expect_eq "inverted view: the allocating function first" leaf "$(val inverted_first)"
expect_eq "inverted view: right under the root, at the top" 1 "$(val inverted_first_row)"
expect_eq "callers view: screenshot not blank" 1 "$(val not_blank)"
expect_eq "inverted view: screenshot not blank" 1 "$(val inverted_not_blank)"

finish
