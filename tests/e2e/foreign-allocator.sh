#!/bin/bash
# foreign-allocator.sh - a program whose allocator is not the C library's
# (loaded with LD_PRELOAD after the recorder, as tcmalloc or mimalloc would
# be, and exporting __libc_free as they do): the recorder must not read the
# word before a block as a glibc chunk header.  Every block of this allocator
# follows an inaccessible page, so such a read kills the program.  Exact
# counts, and the program's output and exit status unchanged.
# Programs and facts: tests/progs/guard_alloc.c, tests/progs/free_in_order.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/libguard_alloc.so" "$PROGS_DIR/guard_alloc.c" -shared -fPIC
build_c "$WORK/free_in_order" "$PROGS_DIR/free_in_order.c"

run_cmd 30 native env LD_PRELOAD="$WORK/libguard_alloc.so" "$WORK/free_in_order"
expect_eq "native run: exit status" 0 "$RUN_STATUS"
expect_eq "native run: stdout" "freed 200 blocks" "$(cat "$WORK/native.out")"

# the allocator goes into the program only (behind the recorder), not into
# mprof's own processes: a shell adds it to the LD_PRELOAD mprof set and
# executes the program in its place
mprof_run 60 "$WORK/trace" -- /bin/sh -c 'LD_PRELOAD="$LD_PRELOAD $1" exec "$2"' sh \
	"$WORK/libguard_alloc.so" "$WORK/free_in_order"
expect_eq "mprof run: exit status" 0 "$RUN_STATUS"
expect_eq "mprof run: stdout" "freed 200 blocks" "$(cat "$RUN_OUT")"
# one trace is the shell's, the other the program's it executed
R=
for t in "$WORK"/trace*; do
	case $t in *.json | *.err) continue ;; esac
	report_json "$t.json" "$t" || continue
	[ "$(q "$t.json" get trace.exe)" = "$WORK/free_in_order" ] && R="$t.json"
done
expect_ne "a trace of free_in_order" "" "$R"
[ -n "$R" ] || finish
expect_site "$R" make_block 200 9600 0 0
expect_eq "summary: unmatched frees" 0 "$(q "$R" summary unmatched_frees)"
finish
