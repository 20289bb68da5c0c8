#!/bin/bash
# html-sampled.sh - `mprof report --html` of a sampled trace says so in its
# header as the text report does, "estimated, sample rate R" (also for a
# runtime with a heap of its own, python3, whose note once took the
# header's place), marks the heap peak rough, gives no temporary count and
# gives blocks freed as the estimate with the free calls recorded, and names
# the peak's flame graph "peak bytes (rough)", as the flame graph page of
# --format flamegraph does; its page loads with no error; an exact trace's
# page says "exact".
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
expect_eq "page: the header says estimated and the sample rate, as the text report does" \
	"estimated, sample rate 4096 B (4.0 KiB): counts and bytes are estimates" "$(v kind)"
report_json "$WORK/s.json" "$WORK/ts"
expect_eq "page: no temporary tab among the tables or the flame graphs" "" \
	"$(grep -E '^(table|flame) temporary=' "$RUN_OUT")"
expect_match "page: the other metrics have their tabs" '^table allocations=' \
	"$(grep '^table allocations=' "$RUN_OUT")"
expect_match "page: the heap peak is rough" '^rough \(sampled\): ' "$(v 'card heap peak (t-gmax) detail')"
expect_eq "page: no temporary count" "-" "$(v 'card temporary')"
expect_eq "page: temporary not estimated" "not estimated (sampled)" "$(v 'card temporary detail')"
expect_eq "page: blocks freed, the estimate" \
	"$(q "$WORK/s.json" summary blocks_freed | sed ':a;s/\B[0-9]\{3\}\>/,&/;ta')" "$(v 'card blocks freed')"
FREES_RECORDED=$(q "$WORK/s.json" summary frees_recorded)
expect_eq "page: the free calls recorded (1 free call, 2 free calls)" \
	"estimate; $FREES_RECORDED free call$([ "$FREES_RECORDED" = 1 ] || echo s) recorded" "$(v 'card blocks freed detail')"
# the estimates' 95% margins and samples, as the text report gives them
grouped() { sed ':a;s/\B[0-9]\{3\}\>/,&/;ta'; }
basis() { # samples bytes_ci95 -> "; N samples, ± at 95%" or the zero-sample bound's words
	if [ "$1" -gt 0 ]; then
		echo "; $1 sample$([ "$1" = 1 ] || echo s), ± at 95%"
	else
		echo "; 0 samples: under $(json_eval "$WORK/s.json" "'%.1f KiB' % ($2 / 1024)") at 95%"
	fi
}
A=$(q "$WORK/s.json" summary allocations)
AS=$(q "$WORK/s.json" summary allocated_samples)
expect_match "page: the allocations card gives the estimate's margin" \
	"^$(echo "$A" | grouped) ±[0-9<]+%\$" "$(v 'card allocations')"
expect_match "page: the allocations card gives the bytes' margin and the samples" \
	" ±[0-9<]+% requested$(basis "$AS" "$(q "$WORK/s.json" summary allocated_bytes_ci95)")\$" \
	"$(v 'card allocations detail')"
LB=$(q "$WORK/s.json" summary leaked_blocks)
LS=$(q "$WORK/s.json" summary leaked_samples)
if [ "$LS" -gt 0 ]; then
	expect_match "page: the leaked card gives the margins and the samples" \
		"^$(echo "$LB" | grouped) ±[0-9<]+% blocks?$(basis "$LS" 0)\$" "$(v 'card leaked (live at exit) detail')"
else
	expect_match "page: the leaked card gives the zero-sample bound" \
		"^0 blocks$(basis 0 "$(q "$WORK/s.json" summary leaked_bytes_ci95)")\$" "$(v 'card leaked (live at exit) detail')"
fi
expect_eq "page: the allocations margin is the JSON's, relative" \
	"$(json_eval "$WORK/s.json" "'%.0f' % (100 * d['summary']['allocations_ci95'] / d['summary']['allocations'])")" \
	"$(v 'card allocations' | sed -E 's/.* ±([0-9]+)%$/\1/')"

expect_eq "page: the peak's flame graph says rough in its header, the allocated bytes' not" \
	"peak bytes (rough) of $WORK/leak_count 7 | allocated bytes of $WORK/leak_count 7" \
	"$(v 'flame peak h1') | $(v 'flame allocated h1')"

# The flame graph page of the peak: rough in its title, header and a note.
run_cmd 60 fg "$MPROF" report -f flamegraph -o "$WORK/fg.html" "$WORK/ts"
run_cmd 120 fgcheck node "$BROWSER_DIR/flamegraph-check.mjs" "$WORK/fg.html" leak_blocks "$WORK/fg"
cat "$RUN_OUT" "$RUN_ERR"
expect_eq "flame graph page: title, header and the note" \
	"peak bytes (rough): $WORK/leak_count 7 - mprof flame graph | peak bytes (rough) of $WORK/leak_count 7 | note: peak bytes of a sampled trace are rough: they have no unbiased estimate" \
	"$(v title) | $(v h1) | $(v notes)"

# A runtime with a heap of its own, sampled: still "estimated" on the page.
PY=/usr/bin/python3
if [ -x "$PY" ]; then
	RUN_NAME=py mprof_run 60 "$WORK/tp" --sampled -- "$PY" -c 'x = [str(i) for i in range(100000)]'
	expect_eq "python3 sampled: exit status" 0 "$RUN_STATUS"
	run_cmd 60 pyhtml "$MPROF" report --html "$WORK/p.html" "$WORK/tp"
	run_cmd 120 pypage node "$BROWSER_DIR/report-page.mjs" "$WORK/p.html" "$WORK/p.png"
	expect_eq "python3 page: no problem" none "$(v problems)"
	expect_eq "python3 page: the header says estimated, not the heap note" \
		"estimated, sample rate 524288 B (512.0 KiB): counts and bytes are estimates" "$(v kind)"
else
	echo "skip: the python3 part: $PY is not installed"
fi

RUN_NAME=e mprof_run 60 "$WORK/te" -- "$WORK/leak_count" 7
run_cmd 60 html2 "$MPROF" report --html "$WORK/e.html" "$WORK/te"
run_cmd 120 page2 node "$BROWSER_DIR/report-page.mjs" "$WORK/e.html" "$WORK/e.png"
expect_eq "exact page: the header says exact" "exact: every allocation recorded" "$(v kind)"
expect_match "exact page: a temporary count" '^[0-9,]+$' "$(v 'card temporary')"
expect_match "exact page: allocations without a margin" '^[0-9,]+$' "$(v 'card allocations')"
expect_match "exact page: no samples named" ' requested$' "$(v 'card allocations detail')"
expect_match "exact page: a temporary tab" '^table temporary=' "$(grep '^table temporary=' "$RUN_OUT")"
finish
