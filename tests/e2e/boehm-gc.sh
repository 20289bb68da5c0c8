#!/bin/bash
# boehm-gc.sh - a program on Boehm's conservative collector runs as without
# mprof: libgc scans every library's writable segment at each collection and
# sizes its heap by what it scans, and the recorder's 1.2 MiB of static
# arenas (bootstrap arena, copied environment) there made the heap 643072
# bytes instead of 196608 (68 collections instead of 246).  The arenas are
# mappings now.  Also the program's own 200,000 malloc/free pairs are
# recorded whole.  Skips without libgc-dev.  Program: tests/progs/boehm_gc.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
[ -f /usr/include/gc.h ] || skip "libgc is not installed (apt package libgc-dev)"
build_c "$WORK/boehm_gc" "$PROGS_DIR/boehm_gc.c" -lgc

expect_as_native 120 gc 0 "$WORK/t" "$WORK/boehm_gc"
expect_match "native output" '^sum 200000, collected heap [0-9]+ bytes$' "$(cat "$WORK/native-gc.out")"
# the recorder's writable segment (72 KiB): no static arena in it
seg=$(readelf -lW "$abs_top_builddir/preload/.libs/libmprof_preload.so" 2>/dev/null | awk '$1 == "LOAD" && $7 ~ /W/ { print strtonum($6) }')
expect_range "recorder's writable segment, bytes" 1 131072 "${seg:-0}"
# main's own malloc(32): allocations, bytes, live at exit
if report_json "$WORK/r.json" "$WORK/t"; then
	expect_eq "main's malloc site" "200000 6400000 0" "$(json_eval "$WORK/r.json" "' '.join(str(sum(s[k]
		for s in d['sites'] if s['frames'][0]['function'] == 'main'))
		for k in ('allocations', 'allocated_bytes', 'leaked_blocks'))")"
fi
finish
