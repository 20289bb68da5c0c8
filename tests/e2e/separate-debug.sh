#!/bin/bash
# separate-debug.sh - debug information in a separate file named by the
# binary's .gnu_debuglink, next to it or in its .debug folder, gives
# file:line and the inlined frame; a binary with no debug information
# anywhere gets its symbol-table names, and the symbolize step does not
# load libdw's debuginfod client for it (with MPROF_DEBUGINFOD unset; when
# libdebuginfod is not installed that check cannot fail).
# Program and facts: tests/progs/inlined_site.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
SRC="$PROGS_DIR/inlined_site.c"
build_c "$WORK/full" "$SRC" -O2
source_line "$SRC" "/* INLINE_ALLOC_LINE */"
ALLOC_LINE=$SOURCE_LINE
unset MPROF_DEBUGINFOD DEBUGINFOD_URLS

# prog_with_link DIR DEBUG_DIR: DIR/prog without DWARF, its debug file in
# DEBUG_DIR (which may be DIR itself) under the name its debuglink gives.
prog_with_link() {
	mkdir -p "$1" "$2"
	objcopy --only-keep-debug "$WORK/full" "$2/prog.debug" &&
		objcopy --strip-debug --add-gnu-debuglink="$2/prog.debug" "$WORK/full" "$1/prog" ||
		hard_error "objcopy failed"
}

for place in beside dot-debug; do
	if [ "$place" = beside ]; then
		prog_with_link "$WORK/$place" "$WORK/$place"
	else
		prog_with_link "$WORK/$place" "$WORK/$place/.debug"
	fi
	RUN_NAME=$place mprof_run 60 "$WORK/$place.trace" -- "$WORK/$place/prog"
	expect_eq "$place: exit status" 0 "$RUN_STATUS"
	report_json "$WORK/$place.json" "$WORK/$place.trace"
	R="$WORK/$place.json"
	expect_site "$R" make_record 6 24000 6 24000
	expect_eq "$place: make_record is inlined into fill_table" fill_table \
		"$(q "$R" caller make_record)"
	expect_eq "$place: make_record frame: file" inlined_site.c \
		"$(q "$R" frame make_record file)"
	expect_eq "$place: make_record frame: line" "$ALLOC_LINE" \
		"$(q "$R" frame make_record line)"
done

# No debug information anywhere: names from the symbol table only, and no
# debuginfod client loaded to look further.
mkdir "$WORK/bare"
objcopy --strip-debug "$WORK/full" "$WORK/bare/prog" || hard_error "objcopy failed"
FILL_SYMBOL=$(nm "$WORK/bare/prog" | awk '$3 ~ /^fill_table/ { print $3; exit }')
RUN_NAME=bare LD_DEBUG=files mprof_run 60 "$WORK/bare.trace" -- "$WORK/bare/prog" >/dev/null
expect_eq "bare: exit status" 0 "$RUN_STATUS"
expect_no_match "bare: no debuginfod client loaded" 'libdebuginfod' "$(cat "$RUN_ERR")"
report_json "$WORK/bare.json" "$WORK/bare.trace"
expect_site "$WORK/bare.json" "$FILL_SYMBOL" 6 24000 6 24000
expect_eq "bare: $FILL_SYMBOL frame: no file" null \
	"$(q "$WORK/bare.json" frame "$FILL_SYMBOL" file)"
finish
