#!/bin/bash
# report-folded.sh - `mprof report --format folded` gives one line per
# distinct call stack, root first, with the value of --metric (peak by
# default): the values add up to the JSON report's summary figure and each
# stack's value to the sites that give it, for every metric; every line
# reads the same in flamegraph.pl, inferno and speedscope (tests/e2e/folded.py
# replicates their three parsers: flamegraph.pl has no Debian package and
# inferno is not packaged either; speedscope itself loads the file in
# report-folded-speedscope.sh).
# Program and facts: tests/progs/cxx_new_delete.cpp (C++ names with
# parentheses) and tests/progs/shared_site.c (two stacks, one site line).
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_cxx "$WORK/cxx_new_delete" "$PROGS_DIR/cxx_new_delete.cpp"
build_c "$WORK/shared_site" "$PROGS_DIR/shared_site.c"

RUN_NAME=cxx mprof_run 60 "$WORK/cxx.trace" -- "$WORK/cxx_new_delete"
expect_eq "cxx: exit status" 0 "$RUN_STATUS"
RUN_NAME=shared mprof_run 60 "$WORK/shared.trace" -- "$WORK/shared_site"
expect_eq "shared_site: exit status" 0 "$RUN_STATUS"

# folded TRACE METRIC: the folded report into $WORK/TRACE.METRIC.folded.
folded() {
	run_cmd 60 "folded-$1-$2" "$MPROF" report --format folded --metric "$2" \
		-o "$WORK/$1.$2.folded" "$WORK/$1.trace"
	expect_eq "$1 --metric $2: exit status" 0 "$RUN_STATUS"
	expect_eq "$1 --metric $2: no message" "" "$(cat "$RUN_ERR")"
}

for t in cxx shared; do
	report_json "$WORK/$t.json" "$WORK/$t.trace"
	for m in peak leaked allocated allocations temporary peak-blocks leaked-blocks; do
		folded "$t" "$m"
		run_cmd 60 "check-$t-$m" "$PYTHON" "$E2E_DIR/folded.py" "$WORK/$t.$m.folded" \
			"$WORK/$t.json" "$m"
		expect_eq "$t --metric $m: folded.py finds no fault" "" "$(grep -v '^ok' "$RUN_OUT" |
			grep -Ev '^(stacks|total) ')$(cat "$RUN_ERR")"
		expect_eq "$t --metric $m: exit status of folded.py" 0 "$RUN_STATUS"
	done
done

# The exact lines of the program's own stacks (bytes and counts of
# cxx_new_delete.cpp's header).
# (main's callers are the C library's: only main on is compared.)
stack=main
from_main() { grep -F ";main;$1" "$2" | sed 's/^.*;main;/main;/'; }
A=$(from_main use_ "$WORK/cxx.allocated.folded")
expect_eq "cxx: allocated bytes by function" "$stack;use_aligned_new() 576
$stack;use_new() 200
$stack;use_new_array() 300
$stack;use_nothrow_new() 666
$stack;use_sized_delete() 288" "$A"
L=$(from_main use_ "$WORK/cxx.leaked.folded")
expect_eq "cxx: leaked bytes by function (use_sized_delete leaks nothing: no line)" \
	"$stack;use_aligned_new() 192
$stack;use_new() 80
$stack;use_new_array() 100
$stack;use_nothrow_new() 666" "$L"
expect_eq "cxx: allocations of use_new" "5" \
	"$(from_main "use_new() " "$WORK/cxx.allocations.folded" | cut -d' ' -f2)"
expect_eq "shared_site: two stacks through leaf, by route" "$stack;route_a;leaf 100000
$stack;route_b;leaf 200000" "$(from_main route_ "$WORK/shared.allocated.folded")"
expect_eq "shared_site: temporary allocations" "$stack;route_a;leaf 1000
$stack;route_b;leaf 1000" "$(from_main route_ "$WORK/shared.temporary.folded")"

# Without --metric: peak.
run_cmd 60 default "$MPROF" report --format folded "$WORK/cxx.trace"
expect_file_eq "no --metric is --metric peak" "$WORK/cxx.peak.folded" "$RUN_OUT"
# One trace only: the lines of two would be summed by every reader.
run_cmd 60 two "$MPROF" report --format folded "$WORK/cxx.trace" "$WORK/shared.trace"
expect_eq "two traces: exit status 2" 2 "$RUN_STATUS"
expect_match "two traces: says why" "--format folded takes one trace, not 2" "$(cat "$RUN_ERR")"
expect_eq "two traces: nothing written" "" "$(cat "$RUN_OUT")"
# A metric of nothing gives an empty file, not an error.
expect_eq "shared_site: nothing leaked by the program's stacks" "" \
	"$(grep -F 'route_' "$WORK/shared.leaked.folded")"
finish
