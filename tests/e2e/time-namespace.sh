#!/bin/bash
# time-namespace.sh - a program started in a time namespace whose
# CLOCK_MONOTONIC is behind the launcher's (`unshare --time --monotonic
# -100000 PROG`, as container tools and CRIU make) is recorded and named as
# without one.  The recorder took its times (its process file's serial, its
# TIME records, its exit and reap times) from its own clock, which the
# launcher compares with its own and other processes': the program
# unshare executed looked older than the exec and mprof warned that it
# "is not recorded: the recorder did not start in it", while its trace
# was there.  Now the recorder shifts its clock by its namespace's offset
# (/proc/self/timens_offsets) less the launcher's.  Needs root and a
# kernel with time namespaces (skipped otherwise).
# Program and facts: tests/progs/time_namespace.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
[ "$(id -u)" = 0 ] || skip "not root: cannot make a time namespace"
command -v unshare >/dev/null 2>&1 || skip "unshare (util-linux) is not installed"
unshare --time --monotonic -600 true 2>/dev/null ||
	skip "unshare --time refused (a kernel without time namespaces, or no CAP_SYS_ADMIN)"
build_c "$WORK/time_namespace" "$PROGS_DIR/time_namespace.c"

mprof_run 60 "$WORK/t" -- unshare --time --monotonic -600 "$WORK/time_namespace"
expect_eq "exit status" 0 "$RUN_STATUS"
expect_eq "stdout as without mprof" "ok" "$(cat "$RUN_OUT")"
expect_eq "no process named as not recorded" "" "$(grep 'not recorded' "$RUN_ERR")"
expect_eq "two traces: unshare's and the program's" 2 \
	"$(cd "$WORK" && ls t t.* 2>/dev/null | grep -vc html)"
PROG_TRACE=$(cd "$WORK" && ls t.* 2>/dev/null | grep -v html | head -n 1)

run_cmd 60 unshare "$MPROF" report -n 0 "$WORK/t"
expect_eq "unshare's report: its exec is not called unrecorded" "" \
	"$(grep '^executed:' "$RUN_OUT")"
expect_match "unshare's report: state exec" "^program: +unshare .* \(pid [0-9]+\), exec$" \
	"$(cat "$RUN_OUT")"
if [ -n "$PROG_TRACE" ] && report_json "$WORK/p.json" "$WORK/$PROG_TRACE"; then
	expect_eq "the program's report: its 100 blocks of 1000 B in make_blocks" "100 100000" \
		"$(q "$WORK/p.json" sum allocations make_blocks) $(q "$WORK/p.json" sum allocated_bytes make_blocks)"
	expect_eq "the program's report: 50 of them leaked" "50" \
		"$(q "$WORK/p.json" sum leaked_blocks make_blocks)"
fi
finish
