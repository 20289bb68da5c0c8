#!/bin/bash
# deleted-binary.sh - the symbols are embedded in the trace when `mprof run`
# ends: after the program is deleted `mprof report` prints the same report
# (text and JSON), with named frames and file:line.
# Program and facts: tests/progs/small_leak.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
mkdir "$WORK/bin"
build_c "$WORK/bin/small_leak" "$PROGS_DIR/small_leak.c"

mprof_run 60 "$WORK/trace" -- "$WORK/bin/small_leak"
expect_eq "exit status" 0 "$RUN_STATUS"
expect_eq "stdout" "small_leak done" "$(cat "$RUN_OUT")"
report_json "$WORK/before.json" "$WORK/trace"
run_cmd 60 before-text "$MPROF" report "$WORK/trace"
expect_eq "text report before deleting: exit status" 0 "$RUN_STATUS"
expect_site "$WORK/before.json" lose_blocks 3 9000 3 9000
expect_site "$WORK/before.json" spin 20000 1310000 0 0
expect_eq "spin: temporary allocations (each freed right away)" 20000 \
	"$(q "$WORK/before.json" sum temporary spin)"

rm -rf "${WORK:?}/bin"
report_json "$WORK/after.json" "$WORK/trace"
run_cmd 60 after-text "$MPROF" report "$WORK/trace"
expect_eq "text report after deleting: exit status" 0 "$RUN_STATUS"
expect_site "$WORK/after.json" lose_blocks 3 9000 3 9000
expect_eq "lose_blocks frame: file after deleting" small_leak.c \
	"$(q "$WORK/after.json" frame lose_blocks file)"
expect_match "lose_blocks frame: line after deleting" '^[0-9]+$' \
	"$(q "$WORK/after.json" frame lose_blocks line)"
expect_file_eq "JSON report unchanged after deleting the program" \
	"$WORK/before.json" "$WORK/after.json"
expect_file_eq "text report unchanged after deleting the program" \
	"$WORK/before-text.out" "$WORK/after-text.out"
finish
