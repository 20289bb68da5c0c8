#!/bin/bash
# separate-debug.sh - debug information in a separate file gives file:line
# and the inlined frame: named by the binary's .gnu_debuglink, next to it
# or in its .debug folder; with no debuglink, under libdw's default name
# (the binary's name + .debug) next to it; for a library loaded through a
# symbolic link in another folder, next to the file the link points to.  A
# binary with no debug information anywhere gets its symbol-table names,
# and the symbolize step does not load libdw's debuginfod client for it
# (with MPROF_DEBUGINFOD unset; when libdebuginfod is not installed that
# check cannot fail).
# Programs and facts: tests/progs/inlined_site.c, tests/progs/debug_lib.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
# no symbol cache: every run here is of one build-id with its debug info
# in another place or gone, and the cache would give each run the DWARF
# answers of the first
MPROF_SYMBOL_CACHE=
export MPROF_SYMBOL_CACHE
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

# No debuglink: libdw's default name, next to the binary.
mkdir "$WORK/implicit"
objcopy --only-keep-debug "$WORK/full" "$WORK/implicit/prog.debug" &&
	objcopy --strip-debug "$WORK/full" "$WORK/implicit/prog" || hard_error "objcopy failed"
RUN_NAME=implicit mprof_run 60 "$WORK/implicit.trace" -- "$WORK/implicit/prog"
expect_eq "implicit: exit status" 0 "$RUN_STATUS"
report_json "$WORK/implicit.json" "$WORK/implicit.trace"
expect_eq "implicit: make_record frame: line" "$ALLOC_LINE" \
	"$(q "$WORK/implicit.json" frame make_record line)"

# A library loaded through a soname link in another folder; its debug file
# lies in the .debug folder beside the file the link points to.
LIB_SRC="$PROGS_DIR/debug_lib.c"
source_line "$LIB_SRC" "/* LIB_ALLOC_LINE */"
LIB_LINE=$SOURCE_LINE
mkdir -p "$WORK/real/.debug" "$WORK/links"
build_c "$WORK/real/libdbglib.so.1.0" "$LIB_SRC" -DDEBUG_LIB_LIBRARY -shared -fPIC \
	-Wl,-soname,libdbglib.so.1
objcopy --only-keep-debug "$WORK/real/libdbglib.so.1.0" "$WORK/real/.debug/libdbglib.so.1.0.debug" &&
	objcopy --strip-debug --add-gnu-debuglink="$WORK/real/.debug/libdbglib.so.1.0.debug" \
		"$WORK/real/libdbglib.so.1.0" || hard_error "objcopy failed"
ln -s ../real/libdbglib.so.1.0 "$WORK/links/libdbglib.so.1"
build_c "$WORK/lib_prog" "$LIB_SRC" -L"$WORK/links" -l:libdbglib.so.1
RUN_NAME=lib LD_LIBRARY_PATH="$WORK/links" mprof_run 60 "$WORK/lib.trace" -- "$WORK/lib_prog"
expect_eq "library: exit status" 0 "$RUN_STATUS"
expect_eq "library: stdout" "lib allocations: 10" "$(cat "$RUN_OUT")"
report_json "$WORK/lib.json" "$WORK/lib.trace"
expect_site "$WORK/lib.json" lib_alloc 10 1000 0 0
expect_eq "library: lib_alloc frame: file" debug_lib.c "$(q "$WORK/lib.json" frame lib_alloc file)"
expect_eq "library: lib_alloc frame: line" "$LIB_LINE" "$(q "$WORK/lib.json" frame lib_alloc line)"

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
# the text report names the module whose frames lack it, and where it is looked for
"$MPROF" report "$WORK/bare.trace" >"$WORK/bare.txt" 2>&1
expect_match "bare: the hint names prog first" \
	"^ +\\(most of them in prog(, [^:]+| and [^:]+)?: their debug info gives files, lines and missing names: Debian's -dbgsym packages install it under /usr/lib/debug, where mprof finds it; MPROF_DEBUGINFOD=1 lets it download it\\)\$" \
	"$(grep -A1 'frames without debug info' "$WORK/bare.txt" | tail -n 1)"
RUN_NAME=full mprof_run 60 "$WORK/full.trace" -- "$WORK/full" >/dev/null
"$MPROF" report "$WORK/full.trace" >"$WORK/full.txt" 2>&1
expect_no_match "with its debug info: no hint" "most of them in" "$(cat "$WORK/full.txt")"
finish
