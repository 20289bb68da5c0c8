#!/bin/bash
# report-folded-speedscope.sh - speedscope (the npm package, in headless
# chromium from file://) loads `mprof report --format folded` with no error
# and shows our figures: the total of the outermost frames is the JSON
# report's allocated bytes, and a function's total its sites'.  A file
# speedscope cannot read counts as a problem (so "no problem" means the
# check can see one).  flamegraph.pl and inferno have no Debian package:
# tests/e2e/folded.py checks their parsing rules instead.
# Program and facts: tests/progs/shared_site.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
require_browser
make_work
build_c "$WORK/shared_site" "$PROGS_DIR/shared_site.c"
mprof_run 60 "$WORK/trace" -- "$WORK/shared_site"
expect_eq "exit status" 0 "$RUN_STATUS"
report_json "$WORK/r.json" "$WORK/trace"
run_cmd 60 folded "$MPROF" report --format folded --metric allocated -o "$WORK/f.folded" "$WORK/trace"
expect_eq "folded: exit status" 0 "$RUN_STATUS"

mkdir -p "$WORK/ok" "$WORK/bad"
run_cmd 120 speedscope node "$BROWSER_DIR/speedscope-folded.mjs" "$WORK/f.folded" "$WORK/ok"
cat "$RUN_OUT" "$RUN_ERR"
expect_eq "speedscope: exit status" 0 "$RUN_STATUS"
expect_eq "speedscope: loaded (its title)" "title=mprof.collapsedstack.txt - speedscope" \
	"$(grep '^title=' "$RUN_OUT")"
expect_eq "speedscope: no problem" "problems=0" "$(grep '^problems=' "$RUN_OUT")"
# the outermost frames of the file, and speedscope's total for them
roots=$(cut -d';' -f1 "$WORK/f.folded" | sed 's/ [0-9]*$//' | sort -u)
sum=0
for r in $roots; do
	v=$(grep -F "total $r=" "$RUN_OUT" | head -1 | cut -d= -f2)
	sum=$((sum + ${v:-0}))
done
expect_eq "speedscope: total of the outermost frames = allocated bytes" \
	"$(q "$WORK/r.json" summary allocated_bytes)" "$sum"
expect_eq "speedscope: route_a's total" "$(q "$WORK/r.json" sum allocated_bytes route_a)" \
	"$(grep '^total route_a=' "$RUN_OUT" | cut -d= -f2)"
expect_eq "speedscope: leaf's total" "$(q "$WORK/r.json" sum allocated_bytes leaf)" \
	"$(grep '^total leaf=' "$RUN_OUT" | cut -d= -f2)"

# a file speedscope cannot read is seen
printf 'this is not a profile\n' >"$WORK/bad.folded"
run_cmd 120 speedscope-bad node "$BROWSER_DIR/speedscope-folded.mjs" "$WORK/bad.folded" "$WORK/bad"
cat "$RUN_OUT"
expect_ne "speedscope: an unreadable file is a problem" "problems=0" "$(grep '^problems=' "$RUN_OUT")"
finish
