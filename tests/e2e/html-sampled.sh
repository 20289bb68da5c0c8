#!/bin/bash
# html-sampled.sh - `mprof report --html` of a sampled trace says so in its
# header as the text report does, "estimated, sample rate R", and its page
# loads with no error; an exact trace's page says "exact".
# Program: tests/progs/leak_count.c.
source "$(dirname "$0")/lib.sh"
require_mprof
require_browser
make_work
build_c "$WORK/leak_count" "$PROGS_DIR/leak_count.c"
RUN_NAME=s mprof_run 60 "$WORK/ts" --sample-rate 4K --sample-seed 5 -- "$WORK/leak_count" 7
expect_eq "sampled run: exit status" 0 "$RUN_STATUS"
run_cmd 60 text "$MPROF" report "$WORK/ts"
expect_match "the text report's kind" "estimated, sample rate 4096 B \\(4\\.0 KiB\\)" "$(cat "$RUN_OUT")"
run_cmd 60 html "$MPROF" report --html "$WORK/s.html" "$WORK/ts"
expect_eq "report --html: exit status" 0 "$RUN_STATUS"
run_cmd 120 page node "$BROWSER_DIR/report-page.mjs" "$WORK/s.html" "$WORK/s.png"
cat "$RUN_OUT" "$RUN_ERR"
v() { sed -n "s/^$1=//p" "$RUN_OUT"; }
expect_eq "page: node exit status" 0 "$RUN_STATUS"
expect_eq "page: no console error, page error or network request" none "$(v problems)"
expect_eq "page: the header says estimated and the sample rate" \
	"estimated, sample rate 4096 B (4.0 KiB)" "$(v kind)"

RUN_NAME=e mprof_run 60 "$WORK/te" -- "$WORK/leak_count" 7
run_cmd 60 html2 "$MPROF" report --html "$WORK/e.html" "$WORK/te"
run_cmd 120 page2 node "$BROWSER_DIR/report-page.mjs" "$WORK/e.html" "$WORK/e.png"
expect_eq "exact page: the header says exact" "exact: every allocation recorded" "$(v kind)"
finish
