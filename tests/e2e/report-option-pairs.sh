#!/bin/bash
# report-option-pairs.sh - every option of `mprof report` and `mprof diff`
# either acts in the format asked or is refused with a one-line usage error
# (exit status 2); none is silently ignored.  A fresh-clone reader found
# `report --metric leaked` with text or JSON exiting 0 and changing nothing,
# and -n ignored by the page, massif, folded, pprof and speedscope.  Text
# with --metric M now shows the summary and M's ranking alone, as
# heaptrack_print --print-leaks and memray's --leaks show one.
# Program and facts: tests/progs/phases.c (phase_one 100 x 1000 B with 40
# leaked, phase_two 60 x 2000 B with 30, phase_three 30 x 3000 B with 20).
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/phases" "$PROGS_DIR/phases.c"

mprof_run 60 "$WORK/trace" -- "$WORK/phases" 0
expect_eq "exit status" 0 "$RUN_STATUS"
T="$WORK/trace"

# rankings: the heading lines of a text report
rankings() { grep '^== ' "$RUN_OUT" | paste -sd'|'; }

# ---- text: --metric M shows M's ranking alone ----
run_cmd 60 text "$MPROF" report "$T"
expect_eq "text: every ranking without --metric" \
	"0 == Peak (live bytes at t-gmax): top 3 of 3 sites|== Leaked (live at exit): top 3 of 3 sites|== Allocated bytes: top 3 of 3 sites|== Allocations: top 3 of 3 sites|== Temporary allocations: no temporary allocations" \
	"$RUN_STATUS $(rankings)"
run_cmd 60 text-leaked "$MPROF" report --metric leaked "$T"
expect_eq "text --metric leaked: the leak ranking alone" \
	"0 == Leaked (live at exit): top 3 of 3 sites" "$RUN_STATUS $(rankings)"
expect_match "text --metric leaked: the summary first" "^leaked:" "$(cat "$RUN_OUT")"
run_cmd 60 text-allocs "$MPROF" report --metric allocations -n 1 "$T"
expect_eq "text --metric allocations -n 1: one site, the most allocations" \
	"0 == Allocations: top 1 of 3 sites" "$RUN_STATUS $(rankings)"
expect_match "text --metric allocations -n 1: phase_one's site" "phase_one" \
	"$(sed -n '/^== Allocations/,$p' "$RUN_OUT")"
run_cmd 60 text-blocks "$MPROF" report --metric leaked-blocks "$T"
expect_eq "text --metric leaked-blocks: a ranking by blocks" \
	"0 == Leaked blocks (live at exit): top 3 of 3 sites" "$RUN_STATUS $(rankings)"
run_cmd 60 text-peak-blocks "$MPROF" report --metric peak-blocks -n 2 "$T"
expect_eq "text --metric peak-blocks: a ranking by blocks" \
	"0 == Peak blocks (live blocks at t-gmax): top 2 of 3 sites" "$RUN_STATUS $(rankings)"

# ---- report: formats that do not take --metric or -n refuse them ----
for f in json html massif dhat dhat-json; do
	run_cmd 60 "metric-$f" "$MPROF" report -f "$f" -o "$WORK/m.$f" --metric leaked "$T"
	expect_eq "report -f $f --metric: refused in one line, exit 2" \
		"2 mprof: report: --format $f takes no --metric (see '$MPROF_HINT report --help')" \
		"$RUN_STATUS $(cat "$RUN_ERR")"
done
run_cmd 60 metric-html-opt "$MPROF" report --html "$WORK/m2.html" --metric leaked "$T"
expect_eq "report --html --metric: refused" \
	"2 mprof: report: --format html takes no --metric (see '$MPROF_HINT report --help')" \
	"$RUN_STATUS $(cat "$RUN_ERR")"
for f in html massif folded flamegraph pprof dhat-json speedscope; do
	run_cmd 60 "top-$f" "$MPROF" report -f "$f" -o "$WORK/n.$f" -n 3 "$T"
	expect_eq "report -f $f -n: refused in one line, exit 2" \
		"2 mprof: report: --format $f takes no -n (see '$MPROF_HINT report --help')" \
		"$RUN_STATUS $(cat "$RUN_ERR")"
done
# ... and those that take them act (their own tests check how)
for f in folded flamegraph pprof speedscope; do
	run_cmd 60 "metric-ok-$f" "$MPROF" report -f "$f" -o "$WORK/ok.$f" --metric leaked "$T"
	expect_eq "report -f $f --metric: taken" "0 " "$RUN_STATUS $(cat "$RUN_ERR")"
done
for f in json dhat; do
	run_cmd 60 "top-ok-$f" "$MPROF" report -f "$f" -o "$WORK/ok.$f" -n 1 "$T"
	expect_eq "report -f $f -n: taken" "0 " "$RUN_STATUS $(cat "$RUN_ERR")"
done

# ---- diff ----
run_cmd 60 diff-metric-json "$MPROF" diff -f json --metric leaked "$T" "$T"
expect_eq "diff -f json --metric: refused in one line, exit 2" \
	"2 mprof: diff: --format json takes no --metric (see '$MPROF_HINT diff --help')" \
	"$RUN_STATUS $(cat "$RUN_ERR")"
for f in json folded flamegraph html; do
	run_cmd 60 "diff-top-$f" "$MPROF" diff -f "$f" -o "$WORK/d.$f" -n 3 "$T" "$T"
	expect_eq "diff -f $f -n: refused in one line, exit 2" \
		"2 mprof: diff: --format $f takes no -n (see '$MPROF_HINT diff --help')" \
		"$RUN_STATUS $(cat "$RUN_ERR")"
done
for f in text folded flamegraph html; do
	run_cmd 60 "diff-metric-ok-$f" "$MPROF" diff -f "$f" -o "$WORK/dm.$f" --metric leaked "$T" "$T"
	expect_eq "diff -f $f --metric: taken" 0 "$RUN_STATUS"
done
finish
