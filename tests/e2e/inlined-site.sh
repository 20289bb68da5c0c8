#!/bin/bash
# inlined-site.sh - an allocation inside an always_inline function (built
# -O2 -g) is shown with the inlined function as its own frame, marked
# inlined, at its own file:line, followed by the function it was inlined into.
# Program and facts: tests/progs/inlined_site.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
SRC="$PROGS_DIR/inlined_site.c"
build_c "$WORK/inlined_site" "$SRC" -O2
source_line "$SRC" "/* INLINE_ALLOC_LINE */"
ALLOC_LINE=$SOURCE_LINE
source_line "$SRC" "/* INLINE_CALL_LINE */"
CALL_LINE=$SOURCE_LINE

mprof_run 60 "$WORK/trace" -- "$WORK/inlined_site"
expect_eq "exit status" 0 "$RUN_STATUS"
expect_eq "stdout" "records: 6" "$(cat "$RUN_OUT")"
report_json "$WORK/r.json" "$WORK/trace"
R="$WORK/r.json"

expect_site "$R" make_record 6 24000 6 24000
expect_eq "make_record frame: inlined" true "$(q "$R" frame make_record inlined)"
expect_eq "make_record frame: file" inlined_site.c "$(q "$R" frame make_record file)"
expect_eq "make_record frame: line" "$ALLOC_LINE" "$(q "$R" frame make_record line)"
expect_eq "make_record is inlined into fill_table" fill_table "$(q "$R" caller make_record)"
expect_eq "fill_table frame: line of the inlined call" "$CALL_LINE" "$(q "$R" frame fill_table line)"
expect_eq "fill_table frame: not inlined" false "$(q "$R" frame fill_table inlined)"
finish
