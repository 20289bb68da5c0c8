#!/bin/bash
# quiet-unreachable.sh - `mprof run -q` on a program it cannot record (static,
# set-user-ID) still says so: one warning line, the program's output and exit
# status unchanged, no trace.  The message was a note, which -q silences, so
# a script running `mprof run -q -o T` got neither a trace nor a word.
#  1. A -static copy of tests/progs/cases/27-static-binary.c (exit 4,
#     "interpreter: none; kept 4 blocks"): stderr is exactly the warning.
#  2. As root: a copy of /bin/true set-user-ID to nobody: the warning that
#     it runs set-user-ID.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
$CC -static -O1 -o "$WORK/static_hello" "$PROGS_DIR/cases/27-static-binary.c" \
	>"$WORK/static.log" 2>&1 || skip "no static C library ($CC -static fails)"

mprof_run 60 "$WORK/t" -q -- "$WORK/static_hello"
expect_eq "static: exit status as without mprof" 4 "$RUN_STATUS"
expect_eq "static: stdout as without mprof" "interpreter: none; kept 4 blocks" "$(cat "$RUN_OUT")"
expect_eq "static: -q still gives the one warning" \
	"mprof: warning: $WORK/static_hello is statically linked: LD_PRELOAD cannot reach it, so no allocations will be recorded (no trace written)" \
	"$(cat "$RUN_ERR")"
expect_eq "static: no trace" no "$([ -e "$WORK/t" ] && echo yes || echo no)"

if [ "$(id -u)" = 0 ] && cp /bin/true "$WORK/suid_true" && chown nobody "$WORK/suid_true" &&
	chmod 4755 "$WORK/suid_true" && "$WORK/suid_true"; then
	RUN_NAME=run-suid mprof_run 60 "$WORK/t-suid" -q -- "$WORK/suid_true"
	expect_eq "set-user-ID: exit status" 0 "$RUN_STATUS"
	expect_eq "set-user-ID: -q still gives the one warning" \
		"mprof: warning: $WORK/suid_true runs set-user-ID: the loader ignores LD_PRELOAD in secure mode, so no allocations will be recorded (no trace written)" \
		"$(cat "$RUN_ERR")"
	expect_eq "set-user-ID: no trace" no "$([ -e "$WORK/t-suid" ] && echo yes || echo no)"
else
	echo "not root, or no set-user-ID file possible here: the set-user-ID case is not run"
fi
finish
