#!/bin/bash
# ring-size.sh - MPROF_RING_KIB: every size up to the documented limit
# records (64 MiB and more made a ring the launcher refused: the program ran
# unrecorded), and the report's "recorder memory at most" counts the part of
# each ring its events reached, not whole rings (a program writing a few
# hundred KiB of events was said to owe up to a whole 32 MiB ring of its
# peak RSS to the recorder).
# Program and facts: tests/progs/small_leak.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/small_leak" "$PROGS_DIR/small_leak.c"

for kib in 32768 65536 1048576; do
	RUN_NAME=run$kib MPROF_RING_KIB=$kib mprof_run 60 "$WORK/trace$kib" -q -- "$WORK/small_leak"
	expect_eq "rings of $kib KiB: exit status" 0 "$RUN_STATUS"
	expect_eq "rings of $kib KiB: stdout" "small_leak done" "$(cat "$RUN_OUT")"
	expect_eq "rings of $kib KiB: mprof says nothing" "" "$(cat "$RUN_ERR")"
	report_json "$WORK/r$kib.json" "$WORK/trace$kib"
	expect_site "$WORK/r$kib.json" lose_blocks 3 9000 3 9000
	expect_site "$WORK/r$kib.json" spin 20000 1310000 0 0
done
# 20003 allocations and frees take well under 8 MiB of ring, and the
# recorder's own mappings are under 8 MiB too.
expect_range "recorder memory (KiB) with 32 MiB rings" 1 16383 \
	"$(q "$WORK/r32768.json" summary profiler.recorder_kib)"
finish
