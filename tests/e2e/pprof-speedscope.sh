#!/bin/bash
# pprof-speedscope.sh - speedscope (npm, tests/browser) imports `mprof report
# --format pprof` in Debian's headless chromium, offline, with no error: the
# title names the file, its Sandwich view shows inuse_space (the default
# sample type): fill_table's own 24000 B (speedscope shows a location's
# outermost line, so the inlined make_record counts under fill_table) and
# main's total, the report's leaked bytes.  A cut profile gives speedscope's
# "Unrecognized format!" alert, which the check must see.
# Program and facts: tests/progs/inlined_site.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
require_browser
[ -f "$BROWSER_DIR/node_modules/speedscope/dist/release/index.html" ] ||
	skip "speedscope is not installed in tests/browser (run tests/install-deps.sh)"
make_work
build_c "$WORK/inlined_site" "$PROGS_DIR/inlined_site.c" -O2
mprof_run 60 "$WORK/inl.trace" -- "$WORK/inlined_site"
expect_eq "inlined_site: stdout" "records: 6" "$(cat "$RUN_OUT")"
run_cmd 60 pprof "$MPROF" report "$WORK/inl.trace" --format pprof -o "$WORK/inl.pb.gz"
expect_eq "--format pprof: exit status" 0 "$RUN_STATUS"
report_json "$WORK/inl.json" "$WORK/inl.trace"

# speedscope's byte figures: "N B" below 1 KiB, else KiB with two decimals
# (JavaScript's toFixed rounds half up)
kb() {
	"$PYTHON" -c 'import sys
from decimal import Decimal, ROUND_HALF_UP
b = int(sys.argv[1])
print("%d B" % b if b < 1024 else
      "%s KB" % (Decimal(b) / 1024).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))' "$1"
}
LEAKED=$(kb "$(q "$WORK/inl.json" summary leaked_bytes)")

run_cmd 120 speedscope node "$BROWSER_DIR/speedscope-import.mjs" "$WORK/inl.pb.gz" "$WORK" \
	"$WORK/speedscope.png"
cat "$RUN_OUT"
expect_eq "speedscope: imported with no problem" 0 "$RUN_STATUS"
expect_eq "speedscope: no problem reported" "" "$(grep '^problem:' "$RUN_OUT")"
expect_eq "speedscope: title" "title: inl.pb.gz - speedscope" "$(grep '^title:' "$RUN_OUT")"
expect_match "speedscope: fill_table's own 23.44 KB (24000 B, with make_record inlined)" \
	'^row: 23\.44 KB \([0-9.]+%\)\|23\.44 KB \([0-9.]+%\)\|fill_table$' "$(cat "$RUN_OUT")"
expect_match "speedscope: main's total is the leaked bytes ($LEAKED)" \
	"^row: $LEAKED \\(100%\\)\\|0 B \\(<0\\.01%\\)\\|main\$" "$(cat "$RUN_OUT")"

# the check sees speedscope's own error
head -c 100 "$WORK/inl.pb.gz" >"$WORK/cut.pb.gz"
run_cmd 120 speedscope-cut node "$BROWSER_DIR/speedscope-import.mjs" "$WORK/cut.pb.gz" "$WORK"
expect_eq "a cut profile: the check fails" 1 "$RUN_STATUS"
expect_match "a cut profile: speedscope's alert is seen" '^problem: alert: Unrecognized format' \
	"$(cat "$RUN_OUT")"
finish
