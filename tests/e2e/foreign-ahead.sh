#!/bin/bash
# foreign-ahead.sh - an allocator loaded ahead of the recorder (jemalloc or
# tcmalloc put first in LD_PRELOAD by a script the program runs in) owns
# malloc, free and realloc, but not reallocarray, which stays the
# recorder's: it must give blocks of that allocator, as the C library's
# reallocarray does through its PLT (it gave blocks of the C library's heap,
# and `sort -n` with jemalloc ahead died of SIGSEGV), and must not read a
# glibc chunk header before that allocator's blocks; one whose n * size
# overflows fails with ENOMEM without reaching that allocator.  mprof says that the
# allocations cannot be recorded, and nothing else.  Programs and facts:
# tests/progs/foreign_ahead.c, tests/progs/guard_alloc.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/libguard_alloc.so" "$PROGS_DIR/guard_alloc.c" -shared -fPIC
build_c "$WORK/foreign_ahead" "$PROGS_DIR/foreign_ahead.c"
OUT="reallocarray blocks from guard_alloc: 2 of 2, sum 45
overflowing reallocarray: NULL, ENOMEM, block kept: 1"

run_cmd 30 native env LD_PRELOAD="$WORK/libguard_alloc.so" "$WORK/foreign_ahead"
expect_eq "native run: exit status" 0 "$RUN_STATUS"
expect_eq "native run: stdout" "$OUT" "$(cat "$WORK/native.out")"

# a shell puts the allocator ahead of the recorder in the LD_PRELOAD mprof
# set and executes the program in its place
mprof_run 60 "$WORK/trace" -- /bin/sh -c 'LD_PRELOAD="$1 $LD_PRELOAD" exec "$2"' sh \
	"$WORK/libguard_alloc.so" "$WORK/foreign_ahead"
expect_eq "mprof run: exit status" 0 "$RUN_STATUS"
expect_eq "mprof run: stdout" "$OUT" "$(cat "$RUN_OUT")"
expect_match "mprof names the allocator ahead of it" \
	"^mprof: process [0-9]+: malloc is defined by $WORK/libguard_alloc.so, ahead of the C library: the program's allocations cannot be recorded\$" \
	"$(cat "$RUN_ERR")"
# one trace is the shell's, the other the program's it executed
R=
for t in "$WORK"/trace*; do
	case $t in *.json | *.err) continue ;; esac
	report_json "$t.json" "$t" || continue
	[ "$(q "$t.json" get trace.exe)" = "$WORK/foreign_ahead" ] && R="$t.json"
done
expect_ne "a trace of foreign_ahead" "" "$R"
[ -n "$R" ] || finish
expect_eq "its exit status" 0 "$(q "$R" summary program.exit_status)"
# the C library bound to that allocator is no library loaded with
# RTLD_DEEPBIND (it was named as one)
expect_eq "its only diagnostic: the allocator ahead" \
	"malloc is defined by $WORK/libguard_alloc.so, ahead of the C library: the program's allocations cannot be recorded" \
	"$(json_eval "$R" '"\n".join(x["text"] for x in d["summary"]["diagnostics"])')"
finish
