#!/bin/bash
# Shared case 27: a statically linked program cannot be profiled through
# LD_PRELOAD: it still runs unchanged (or mprof refuses before running it),
# and mprof says that it is static and nothing can be recorded.
. "$abs_top_srcdir/tests/e2e/lib.sh"
case_setup 27-static-binary
[ -x ./prog ] || skip "no static libc to link against"

mprof_run 10 "$WORK/trace" -- ./prog
if [ "$RUN_STATUS" -eq 4 ]; then
	expect_eq "1. stdout" "static program done" "$(cat "$RUN_OUT")"
else
	expect_range "1. refused: non-zero status (and no timeout)" 1 123 "$RUN_STATUS"
	expect_eq "1. refused before running: no output" "" "$(cat "$RUN_OUT")"
fi
expect_ne "2. no hang (10 s)" 124 "$RUN_STATUS"
expect_match "3. mprof says the program is statically linked" '^mprof: .*[Ss]tatic' "$(cat "$RUN_ERR")"
expect_match "3. ... and that nothing can be recorded" \
	'^mprof: .*(nothing|no allocation|cannot|can not|not be recorded|unable)' "$(cat "$RUN_ERR")"
finish
