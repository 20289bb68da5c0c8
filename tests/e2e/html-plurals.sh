#!/bin/bash
# html-plurals.sh - the report page (`mprof report --html`) writes the word
# after a count as the text report does (trace/plural.h): "1 block", "1
# realloc", "1 free was not recorded", "1 allocation" left out by a filter,
# never "1 blocks" or "1 frees were".  Its cards, notes and quality line
# once said "1 blocks" and "1 frees were not recorded".
# Programs: tests/progs/one_each.c (every count 1), unrecorded_fork.c (a
# child's trace with 1 unrecorded free, as unrecorded-fork-handler.sh).
source "$(dirname "$0")/lib.sh"
require_mprof
require_browser
make_work
build_c "$WORK/one_each" "$PROGS_DIR/one_each.c"
build_c "$WORK/libunrecorded_fork.so" "$PROGS_DIR/unrecorded_fork_lib.c" -shared -fPIC
build_c "$WORK/unrecorded_fork" "$PROGS_DIR/unrecorded_fork.c" -L"$WORK" -lunrecorded_fork \
	-Wl,-rpath,"$WORK"
v() { sed -n "s/^$1=//p" "$RUN_OUT"; }
page() { # page NAME TRACE [REPORT OPTION...]: the page's facts in $RUN_OUT
	local name=$1 trace=$2
	shift 2
	run_cmd 60 "$name-html" "$MPROF" report "$@" --html "$WORK/$name.html" "$trace"
	expect_eq "$name: report --html: exit status" 0 "$RUN_STATUS"
	run_cmd 120 "$name-page" node "$BROWSER_DIR/report-page.mjs" "$WORK/$name.html" "$WORK/$name.png"
	cat "$RUN_OUT" "$RUN_ERR"
	expect_eq "$name: page: no problem" none "$(v problems)"
}

RUN_NAME=one mprof_run 60 "$WORK/t1" -- "$WORK/one_each"
expect_eq "one_each: stdout" one_each "$(cat "$RUN_OUT")"
report_json "$WORK/t1.json" "$WORK/t1"
expect_eq "one_each: peak blocks, leaked blocks, reallocs, frees (the facts the page words)" "1 1 1 1" \
	"$(q "$WORK/t1.json" summary peak.blocks) $(q "$WORK/t1.json" summary leaked_blocks) $(q "$WORK/t1.json" summary reallocs) $(q "$WORK/t1.json" summary frees)"
page one "$WORK/t1"
expect_match "one_each: the peak's card: 1 block" '^1 block, at ' "$(v 'card heap peak (t-gmax) detail')"
expect_eq "one_each: the leak's card: 1 block" "1 block" "$(v 'card leaked (live at exit) detail')"
expect_eq "one_each: the frees' card: 1 realloc" "1 realloc" "$(v 'card frees detail')"
expect_eq "one_each: no note" none "$(v notes)"
page filtered "$WORK/t1" --exclude-function churn
expect_eq "filtered: the note: 1 of 3 sites, 1 allocation" \
	"Filtered: 1 of 3 sites left out (1 allocation, 30 B); the totals are the whole program's." "$(v notes)"

mprof_run 60 "$WORK/tu" -- "$WORK/unrecorded_fork"
expect_eq "unrecorded_fork: stdout" "unrecorded_fork child 0" "$(cat "$RUN_OUT")"
CHILD=$(ls "$WORK"/tu.[0-9]* 2>/dev/null | head -n 1)
[ -n "$CHILD" ] || hard_error "no child trace"
page child "$CHILD"
expect_eq "child: the leak's card: at most 1 block" "at most: 1 block" "$(v 'card leaked (live at exit) detail')"
expect_eq "child: the note: 1 free was not recorded" \
	"1 free was not recorded: up to 1 of the blocks counted live at the end may have been freed, so the leak and peak figures may be high." \
	"$(v notes)"
expect_eq "child: the inherited site's row has no 'undefined' place" "#1 ; 3.9 KiB ; 100.0% ; 0 ; [inherited at fork]" \
	"$(v 'table leaked')"
finish
