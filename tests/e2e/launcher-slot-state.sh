#!/bin/bash
# launcher-slot-state.sh - when a process is finalized, the launcher gives
# back the re-encoding states of the slots that had one, not a free() for
# every slot of the process file (4096 by default: ~15 us of the launcher's
# CPU a process, bench/HISTORY.md session 61).  sh runs /bin/true 20 times
# (a fork child each, which executes it): 21 traces as before, and the
# launcher's free(NULL) calls, counted by tests/progs/free_null_count.c
# preloaded into mprof itself, fewer than one process file's slots (more
# than 21 x 4096 before: 86237; 265 after).
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
# a sanitizer build's launcher has its free() from AddressSanitizer, which
# must come first: a library put ahead of it aborts mprof
ldd "$MPROF" 2>/dev/null | grep -q 'libasan' &&
	skip "mprof is built with AddressSanitizer, whose free() a preloaded counter cannot wrap"
make_work
build_c "$WORK/libfree_null_count.so" "$PROGS_DIR/free_null_count.c" -shared -fPIC

mkdir "$WORK/traces"
run_cmd 120 sh env LD_PRELOAD="$WORK/libfree_null_count.so" \
	FREE_NULL_COUNT_FILE="$WORK/launcher.count" \
	"$MPROF" run -q -o "$WORK/traces/t" -- /bin/sh -c \
	'for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do /bin/true; done; echo ran'
expect_eq "exit status" 0 "$RUN_STATUS"
expect_eq "stdout" ran "$(cat "$RUN_OUT")"
expect_eq "sh and its 20 children have a trace each" 21 "$(ls "$WORK/traces" | grep -c '^t')"
n=$(sed -n 's/^free_null \([0-9]*\)$/\1/p' "$WORK/launcher.count" 2>/dev/null)
expect_eq "the launcher's free(NULL) calls were counted" yes "$([ -n "$n" ] && echo yes || echo no)"
expect_eq "the launcher's free(NULL) calls: fewer than 4096" yes \
	"$([ -n "$n" ] && [ "$n" -lt 4096 ] && echo yes || echo "no ($n)")"
echo "# free(NULL) calls in the launcher: $n"
finish
