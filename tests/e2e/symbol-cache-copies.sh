#!/bin/bash
# symbol-cache-copies.sh - two copies of one library (one build-id) at two
# paths, copy_one called in the first and copy_two in the second: the
# symbol cache of that build-id gets the answers of both (it was written
# once per copy, each write replacing the last, so one function's answers
# were lost; now once per build-id with all the copies' answers).  A later
# run of a copy without debug info (same build-id) calling both gets
# file:line for both frames from the cache alone.
# Programs and facts: tests/progs/cache_copies_main.c,
# tests/progs/cache_copies_lib.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/libcopy_a.so" "$PROGS_DIR/cache_copies_lib.c" -shared -fPIC
cp "$WORK/libcopy_a.so" "$WORK/libcopy_b.so" || hard_error "cannot copy the library"
objcopy --strip-debug "$WORK/libcopy_a.so" "$WORK/libcopy_c.so" ||
	hard_error "cannot strip the library"
build_c "$WORK/cache_copies_main" "$PROGS_DIR/cache_copies_main.c" -ldl
export MPROF_SYMBOL_CACHE="$WORK/cache"

mprof_run 60 "$WORK/first.trace" -- "$WORK/cache_copies_main" "$WORK/libcopy_a.so" \
	"$WORK/libcopy_b.so"
expect_eq "first run: exit status" 0 "$RUN_STATUS"
mprof_run 60 "$WORK/second.trace" -- "$WORK/cache_copies_main" "$WORK/libcopy_c.so" \
	"$WORK/libcopy_c.so"
expect_eq "second run (the copy without debug info): exit status" 0 "$RUN_STATUS"
if report_json "$WORK/second.json" "$WORK/second.trace"; then
	expect_site "$WORK/second.json" copy_one 1 100 1 100
	expect_site "$WORK/second.json" copy_two 1 200 1 200
	expect_eq "copy_one frame: file, from the cache" cache_copies_lib.c \
		"$(q "$WORK/second.json" frame copy_one file)"
	expect_eq "copy_two frame: file, from the cache" cache_copies_lib.c \
		"$(q "$WORK/second.json" frame copy_two file)"
fi
finish
