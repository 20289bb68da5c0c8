#!/bin/bash
# html-site-rows.sh - the sites' table of `mprof report --html`, as a user
# meets it in chromium: rows whose first frame reads the same are told apart
# by a "called from" line of the callers down to where their stacks first
# differ (the text report shows them in full), and each row looks and acts
# as a control that opens its stack: a pointer cursor, a ▸/▾ marker, a
# background on hover, reached by Tab, opened and closed by Enter and Space;
# an inlined allocating frame is marked so in its row, as in the text report.
# Program and facts: tests/progs/shared_callee.c (grab() allocates along
# four call paths: 9 via mid <- outer_b, 7 via mid <- outer_a, 5 via
# from_load, 3 via from_parse).
source "$(dirname "$0")/lib.sh"
require_mprof
require_browser
make_work
build_c "$WORK/shared_callee" "$PROGS_DIR/shared_callee.c"
mprof_run 60 "$WORK/trace" -- "$WORK/shared_callee"
expect_eq "exit status" 0 "$RUN_STATUS"
run_cmd 60 html "$MPROF" report --html "$WORK/page.html" "$WORK/trace"
expect_eq "report --html: exit status" 0 "$RUN_STATUS"
# the text report: four sites whose first frame is grab
run_cmd 60 text "$MPROF" report -n 4 "$WORK/trace"
expect_eq "text report: four sites start at grab" 4 \
	"$(awk '/^== Allocations/ { on = 1 } on && /^#[0-9]/ { n = NR + 3 } NR == n' "$RUN_OUT" | grep -c '^    at grab ')"

run_cmd 120 rows node "$BROWSER_DIR/site-rows.mjs" "$WORK/page.html" allocations
cat "$RUN_OUT"
[ -s "$RUN_ERR" ] && head -20 "$RUN_ERR"
v() { sed -n "s/^$1=//p" "$RUN_OUT"; }
expect_eq "page: node exit status" 0 "$RUN_STATUS"
expect_eq "page: no console error, page error or network request" none "$(v problems)"
expect_eq "page: four rows" 4 "$(v rows)"
source_line "$PROGS_DIR/shared_callee.c" GRAB_LINE
# a row shows the source file's base name, its full path on hover (a long
# absolute path left the function's name no room)
GRAB="grab | shared_callee.c:$SOURCE_LINE [shared_callee]"
expect_eq "page: row 1's place in full on hover" "$PROGS_DIR/shared_callee.c:$SOURCE_LINE [shared_callee]" \
	"$(v 'row 1 place title')"
# ranked by allocations, the column beside them is the allocated bytes (it
# was a second "allocations" column with the same numbers)
expect_eq "page: the allocations tab's headers" \
	"rank | allocations | share | allocated bytes | site (allocating function first)" "$(v headers)"
expect_eq "page: row 1 names the callers that differ" "$GRAB | called from mid ← outer_b" "$(v 'row 1')"
expect_eq "page: row 2" "$GRAB | called from mid ← outer_a" "$(v 'row 2')"
expect_eq "page: row 3" "$GRAB | called from from_load" "$(v 'row 3')"
expect_eq "page: row 4" "$GRAB | called from from_parse" "$(v 'row 4')"
expect_eq "page: a row has a pointer cursor" pointer "$(v cursor)"
expect_eq "page: a row is in the tab order" 0 "$(v tabindex)"
expect_eq "page: a row is a button to assistive tools" button "$(v role)"
expect_eq "page: a closed row's marker" '"▸"' "$(v 'marker closed')"
expect_eq "page: hovering a row changes its background" true "$(v 'hover changes background')"
expect_eq "page: Tab from the metric buttons reaches the first row" true "$(v 'tab reaches first row')"
expect_eq "page: Enter opens the row's stack" 'expanded=true stack=true marker="▾"' "$(v 'after enter')"
expect_eq "page: Space closes it" 'expanded=false stack=false marker="▸"' "$(v 'after space')"

# A site whose allocating frame was inlined: its row says so, as the text
# report's "at make_record (inlined_site.c:N) [inlined_site] (inlined)".
# Program and facts: tests/progs/inlined_site.c (-O2: make_record inlined
# into fill_table; its 6 blocks are the largest leak).
build_c "$WORK/inlined_site" "$PROGS_DIR/inlined_site.c" -O2
RUN_NAME=inl mprof_run 60 "$WORK/inl.trace" -- "$WORK/inlined_site"
expect_eq "inlined: exit status" 0 "$RUN_STATUS"
run_cmd 60 inl-text "$MPROF" report -n 1 --metric leaked "$WORK/inl.trace"
source_line "$PROGS_DIR/inlined_site.c" "/* INLINE_ALLOC_LINE */"
expect_eq "inlined: the text report marks the frame" \
	"    at make_record (inlined_site.c:$SOURCE_LINE) [inlined_site] (inlined)" \
	"$(grep -m1 '^    at ' "$RUN_OUT")"
run_cmd 60 inl-html "$MPROF" report --html "$WORK/inl.html" "$WORK/inl.trace"
run_cmd 120 inl-rows node "$BROWSER_DIR/site-rows.mjs" "$WORK/inl.html" leaked
expect_eq "inlined: node exit status" 0 "$RUN_STATUS"
expect_eq "inlined: the page's row marks it too" \
	"make_record | inlined_site.c:$SOURCE_LINE [inlined_site] (inlined) | -" "$(v 'row 1')"
expect_eq "inlined: the leaked tab's headers" \
	"rank | leaked bytes | share | allocations | site (allocating function first)" "$(v headers)"
finish
