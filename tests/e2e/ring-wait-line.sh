#!/bin/bash
# ring-wait-line.sh - a process whose recorder waited for room in a full
# ring gets its "waited N times for mprof to drain a full ring" line, also
# when its other diagnostic's text holds the letters "ring" (here a library
# in a folder named "during"): that line is left out only for a DIAG
# record of the ring-wait code, and the recorder writes none.  mprof looked
# for "ring" in the text and said nothing of the waits.
# Program and facts: tests/progs/ring_wait_named.c, tests/progs/dlmopen_lib.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
mkdir -p "$WORK/during" || hard_error "cannot create $WORK/during"
build_c "$WORK/during/libdlmopen_lib.so" "$PROGS_DIR/dlmopen_lib.c" -shared -fPIC
build_c "$WORK/ring_wait_named" "$PROGS_DIR/ring_wait_named.c" -ldl -pthread

mprof_run 60 "$WORK/t" -- "$WORK/ring_wait_named" "$WORK/during/libdlmopen_lib.so"
expect_eq "exit status as without mprof" 0 "$RUN_STATUS"
expect_eq "stdout as without mprof" done "$(cat "$RUN_OUT")"
expect_eq "the note naming the library" \
	"mprof: the program loaded $WORK/during/libdlmopen_lib.so with dlmopen() into a namespace of its own, with a C library of its own: the allocations made there are not recorded" \
	"$(grep -F 'dlmopen()' "$RUN_ERR")"
report_json "$WORK/t.json" "$WORK/t"
waits=$(json_eval "$WORK/t.json" "d['summary']['profiler']['ring_waits']")
expect_match "the recorder waited for room" '^[1-9][0-9]*$' "$waits"
s=s
[ "$waits" = 1 ] && s=
expect_eq "the ring-wait line, with the count the trace has" \
	"mprof: the program waited $waits time$s for mprof to drain a full ring (nothing was dropped)" \
	"$(grep -F 'full ring' "$RUN_ERR")"
finish
