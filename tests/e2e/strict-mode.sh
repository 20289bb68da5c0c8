#!/bin/bash
# strict-mode.sh - a program in seccomp strict mode (only read, write, exit
# and sigreturn allowed) runs under mprof as without it: same output, same
# exit status.  The recorder mapped memory for the first call recorded
# after the switch, so the kernel killed the program (SIGKILL, its output
# lost).  Now the thread that enters strict mode, by prctl() or by
# syscall(SYS_seccomp), records nothing more: its calls are counted as
# unrecorded and a note says why.
#  1. 3 blocks of 100 B kept and 1 MiB made and freed before; 100000
#     blocks of 64 B made and freed in strict mode; "strict 100000 12742320"
#     on stdout, exit status 3.
# Program and facts: tests/progs/strict_mode.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/strict_mode" "$PROGS_DIR/strict_mode.c"

for how in prctl syscall; do
	run_cmd 30 "native-$how" "$WORK/strict_mode" $how 100000
	[ "$RUN_STATUS" = 3 ] || skip "strict mode is refused here: $(head -c 300 "$RUN_ERR")"
	expect_eq "$how, native: stdout" "strict 100000 12742320" "$(cat "$RUN_OUT")"

	RUN_NAME=run-$how mprof_run 60 "$WORK/t-$how" -- "$WORK/strict_mode" $how 100000
	expect_eq "$how, mprof run: exit status" 3 "$RUN_STATUS"
	expect_eq "$how, mprof run: stdout" "strict 100000 12742320" "$(cat "$RUN_OUT")"
	expect_match "$how: the note says why the calls are not recorded" \
		"^mprof: a thread entered seccomp strict mode \(only read, write and exit allowed\): its later allocator calls are counted as unrecorded, not recorded$" \
		"$(cat "$RUN_ERR")"
	report_json "$WORK/$how.json" "$WORK/t-$how" || continue
	R="$WORK/$how.json"
	expect_eq "$how: exit status in the trace" 3 "$(q "$R" summary program.exit_status)"
	expect_eq "$how: allocations (3 + 1 MiB, before strict mode)" 4 "$(q "$R" summary allocations)"
	expect_eq "$how: frees" 1 "$(q "$R" summary frees)"
	expect_eq "$how: unrecorded allocations" 100000 "$(q "$R" summary quality.unrecorded_allocations)"
	expect_eq "$how: unrecorded frees" 100000 "$(q "$R" summary quality.unrecorded_frees)"
done
finish
