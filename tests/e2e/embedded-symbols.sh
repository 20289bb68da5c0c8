#!/bin/bash
# embedded-symbols.sh - `mprof report` takes every frame of a trace that
# holds a SYMBOLS chunk from that chunk, also the frames for which the
# symbolize step found no name at all (module+offset only): it does not
# look at the module files again.  Recorded from a copy without any symbol
# table, the report stays the same after the copy is replaced by the full
# binary (same build-id, names and DWARF): before this, the report opened
# the module with libdw for every address missing from the chunk, which
# cost most of its time and memory on C++ programs.
# Program and facts: tests/progs/inlined_site.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
mkdir "$WORK/bin"
build_c "$WORK/full" "$PROGS_DIR/inlined_site.c" -O2
objcopy --strip-all "$WORK/full" "$WORK/bin/prog" || hard_error "objcopy --strip-all failed"
build_id() { readelf -n "$1" | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p'; }
[ -n "$(build_id "$WORK/full")" ] || skip "the compiler wrote no build-id"
expect_eq "the copy without symbols keeps the build-id" "$(build_id "$WORK/full")" \
	"$(build_id "$WORK/bin/prog")"

mprof_run 60 "$WORK/trace" -- "$WORK/bin/prog"
expect_eq "exit status" 0 "$RUN_STATUS"
expect_eq "stdout" "records: 6" "$(cat "$RUN_OUT")"
report_json "$WORK/before.json" "$WORK/trace"
run_cmd 60 before-text "$MPROF" report "$WORK/trace"
expect_eq "text report before: exit status" 0 "$RUN_STATUS"
# Without symbols, fill_table, main and _start are module+offset frames of
# prog: the site of the 4000-byte records names no function of prog.
expect_eq "the records: allocations" 6 \
	"$(q "$WORK/before.json" sum-size allocations 4000 __libc_start_call_main)"
expect_eq "the records: bytes live at exit" 24000 \
	"$(q "$WORK/before.json" sum-size leaked_bytes 4000 __libc_start_call_main)"
expect_no_site "$WORK/before.json" fill_table
expect_range "unnamed frames in prog, recorded without symbols" 3 100 \
	"$(q "$WORK/before.json" unnamed __libc_start_call_main '/prog$')"

# The same path now holds the binary with its symbols and debug info.
cp "$WORK/full" "$WORK/bin/prog"
report_json "$WORK/after.json" "$WORK/trace"
run_cmd 60 after-text "$MPROF" report "$WORK/trace"
expect_eq "text report after: exit status" 0 "$RUN_STATUS"
expect_no_site "$WORK/after.json" fill_table
expect_no_site "$WORK/after.json" make_record
expect_file_eq "JSON report unchanged after replacing the binary" \
	"$WORK/before.json" "$WORK/after.json"
expect_file_eq "text report unchanged after replacing the binary" \
	"$WORK/before-text.out" "$WORK/after-text.out"
finish
