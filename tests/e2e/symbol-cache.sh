#!/bin/bash
# symbol-cache.sh - the symbolize step keeps its answers per build-id in
# $MPROF_SYMBOL_CACHE and takes them from there on later runs: a copy of
# the program without its debug info (same build-id) still gets file:line
# and the inlined frame, from the cache alone.  Answers made without DWARF
# never hide DWARF ones (run first, such a copy would hide the debug info of
# the real binary): they are kept apart, with the proof that no debug file
# exists, and used only while it holds, a damaged cache file or a FIFO in its place is ignored, an
# empty MPROF_SYMBOL_CACHE writes nothing, and without it the cache lives
# under $HOME/.cache/mprof.
# Program and facts: tests/progs/inlined_site.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
SRC="$PROGS_DIR/inlined_site.c"
build_c "$WORK/inlined_site" "$SRC" -O2
source_line "$SRC" "/* INLINE_ALLOC_LINE */"
ALLOC_LINE=$SOURCE_LINE
BUILD_ID=$(readelf -n "$WORK/inlined_site" | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p')
[ -n "$BUILD_ID" ] || skip "the compiler wrote no build-id"
export MPROF_SYMBOL_CACHE="$WORK/cache"
VERSION=$("$MPROF_ANALYZE" --version | awk '{print $NF}')
CACHED="$WORK/cache/symbols-2-$VERSION/$BUILD_ID"

# Asserts the site with DWARF's answers ($2 yes: the inlined frame at its
# file:line) or with the symbol table's only ($2 no: fill_table, no file).
check_site() {
	local r=$1 dwarf=$2
	if [ "$dwarf" = yes ]; then
		expect_site "$r" make_record 6 24000 6 24000
		expect_eq "$3: make_record is inlined into fill_table" fill_table \
			"$(q "$r" caller make_record)"
		expect_eq "$3: make_record frame: file" inlined_site.c \
			"$(q "$r" frame make_record file)"
		expect_eq "$3: make_record frame: line" "$ALLOC_LINE" \
			"$(q "$r" frame make_record line)"
	else
		expect_site "$r" "$FILL_SYMBOL" 6 24000 6 24000
		expect_no_site "$r" make_record
		expect_eq "$3: $FILL_SYMBOL frame: no file" null \
			"$(q "$r" frame "$FILL_SYMBOL" file)"
	fi
}

# 1. A copy without debug info, run first, caches nothing; then the real
# binary gets its DWARF answers and fills the cache with them.
objcopy --strip-debug "$WORK/inlined_site" "$WORK/stripped" ||
	hard_error "objcopy --strip-debug failed"
expect_eq "stripped copy keeps the build-id" "$BUILD_ID" \
	"$(readelf -n "$WORK/stripped" | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p')"
# Its symbol table's name of fill_table (gcc may have cloned it: .constprop).
FILL_SYMBOL=$(nm "$WORK/stripped" | awk '$3 ~ /^fill_table/ { print $3; exit }')
RUN_NAME=first mprof_run 60 "$WORK/first.trace" -- "$WORK/stripped"
expect_eq "stripped copy first: exit status" 0 "$RUN_STATUS"
report_json "$WORK/first.json" "$WORK/first.trace"
check_site "$WORK/first.json" no "stripped copy first"
expect_true "nothing cached without DWARF" test ! -e "$CACHED"

RUN_NAME=cold mprof_run 60 "$WORK/cold.trace" -- "$WORK/inlined_site"
expect_eq "cold run: exit status" 0 "$RUN_STATUS"
expect_true "cache file named by the build-id written" test -s "$CACHED"
expect_eq "cache file says its answers came with DWARF" 1 \
	"$(od -An -tu1 -j8 -N1 "$CACHED" | tr -d ' ')"
report_json "$WORK/cold.json" "$WORK/cold.trace"
check_site "$WORK/cold.json" yes "cold"

# 2. The stripped copy again: file:line can only come from the cache.
RUN_NAME=warm mprof_run 60 "$WORK/warm.trace" -- "$WORK/stripped"
expect_eq "warm run: exit status" 0 "$RUN_STATUS"
report_json "$WORK/warm.json" "$WORK/warm.trace"
check_site "$WORK/warm.json" yes "warm, stripped"

# 3. A damaged cache file is ignored (the stripped copy has no file:line of
# its own) and replaced by the next run with DWARF; a FIFO in its place is
# neither waited on nor replaced by a run without DWARF.
printf 'MPROFSYC garbage' >"$CACHED"
RUN_NAME=damaged mprof_run 60 "$WORK/damaged.trace" -- "$WORK/stripped"
expect_eq "damaged cache: exit status" 0 "$RUN_STATUS"
expect_eq "damaged cache: no message" "" "$(grep -v -e '^mprof: trace written' -e '^mprof: a page to look at it' "$RUN_ERR")"
report_json "$WORK/damaged.json" "$WORK/damaged.trace"
check_site "$WORK/damaged.json" no "damaged cache"
RUN_NAME=repaired mprof_run 60 "$WORK/repaired.trace" -- "$WORK/inlined_site"
expect_eq "damaged cache file replaced with DWARF answers" 1 \
	"$(od -An -tu1 -j8 -N1 "$CACHED" | tr -d ' ')"
rm -f "$CACHED" && mkfifo "$CACHED" || hard_error "mkfifo $CACHED failed"
RUN_NAME=fifo mprof_run 60 "$WORK/fifo.trace" -- "$WORK/stripped"
expect_eq "FIFO in the cache: exit status (124: it hung)" 0 "$RUN_STATUS"
report_json "$WORK/fifo.json" "$WORK/fifo.trace"
check_site "$WORK/fifo.json" no "FIFO in the cache"
rm -f "$CACHED"

# 4. Answers made without DWARF go to BUILD-ID.symtab with the proof that
# no debug file exists, and are used while it holds: the next run takes
# them from there (the file is not rewritten), and a debug file installed
# later (in .debug/ next to the binary, where libdw looks) is read at once.
build_c "$WORK/leaker_full" "$PROGS_DIR/small_leak.c"
mkdir -p "$WORK/plain"
objcopy --only-keep-debug "$WORK/leaker_full" "$WORK/leaker.debug" &&
	objcopy --strip-debug "$WORK/leaker_full" "$WORK/plain/leaker" ||
	hard_error "objcopy failed"
LEAK_ID=$(readelf -n "$WORK/plain/leaker" | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p')
SYMTAB="$WORK/cache/symbols-2-$VERSION/$LEAK_ID.symtab"
RUN_NAME=symtab1 mprof_run 60 "$WORK/symtab1.trace" -- "$WORK/plain/leaker"
expect_eq "no debug file: exit status" 0 "$RUN_STATUS"
expect_eq "no debug file: .symtab cache file says so" 2 \
	"$(od -An -tu1 -j8 -N1 "$SYMTAB" | tr -d ' ')"
expect_true "no debug file: no DWARF cache file" test ! -e "${SYMTAB%.symtab}"
report_json "$WORK/symtab1.json" "$WORK/symtab1.trace"
expect_site "$WORK/symtab1.json" lose_blocks 3 9000 3 9000
expect_eq "no debug file: lose_blocks has no file" null "$(q "$WORK/symtab1.json" frame lose_blocks file)"
INODE=$(stat -c %i "$SYMTAB")
RUN_NAME=symtab2 mprof_run 60 "$WORK/symtab2.trace" -- "$WORK/plain/leaker"
expect_eq "no debug file, again: answered from the cache (file not rewritten)" "$INODE" \
	"$(stat -c %i "$SYMTAB")"
report_json "$WORK/symtab2.json" "$WORK/symtab2.trace"
expect_site "$WORK/symtab2.json" lose_blocks 3 9000 3 9000
mkdir -p "$WORK/plain/.debug" && cp "$WORK/leaker.debug" "$WORK/plain/.debug/leaker.debug"
RUN_NAME=symtab3 mprof_run 60 "$WORK/symtab3.trace" -- "$WORK/plain/leaker"
report_json "$WORK/symtab3.json" "$WORK/symtab3.trace"
expect_eq "debug file installed: lose_blocks has its file" small_leak.c \
	"$(q "$WORK/symtab3.json" frame lose_blocks file)"
expect_true "debug file installed: DWARF cache file written" test -s "${SYMTAB%.symtab}"

# 5. Set and empty: no cache at all; unset: under $HOME/.cache/mprof.
mkdir -p "$WORK/home"
HOME="$WORK/home" MPROF_SYMBOL_CACHE='' RUN_NAME=off \
	mprof_run 60 "$WORK/off.trace" -- "$WORK/inlined_site"
expect_eq "cache off: exit status" 0 "$RUN_STATUS"
expect_eq "cache off: nothing written under HOME" "" "$(ls -A "$WORK/home")"
(unset MPROF_SYMBOL_CACHE XDG_CACHE_HOME
 HOME="$WORK/home" RUN_NAME=home mprof_run 60 "$WORK/home.trace" -- "$WORK/inlined_site" >/dev/null)
expect_true "cache unset: written under HOME/.cache/mprof" \
	test -s "$WORK/home/.cache/mprof/symbols-2-$VERSION/$BUILD_ID"
finish
