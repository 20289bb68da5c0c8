#!/bin/bash
# prctl-sandbox.sh - a program under a Chromium-style seccomp filter that
# kills the process on any prctl option but PR_GET_NAME and PR_SET_NAME
# runs under mprof as without it, whether it installs the filter with
# prctl(PR_SET_SECCOMP) or with syscall(SYS_seccomp) as libseccomp does.
# The recorder asked prctl(PR_GET_SECCOMP) at fork and at exit whether a
# filter was in force: the program was killed by SIGSYS at its fork.  It
# now knows from its wrappers of those calls (and /proc/self/status at the
# start); the kid forked under the filter runs unrecorded, and mprof says
# why.
# Program and facts: tests/progs/prctl_sandbox.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/prctl_sandbox" "$PROGS_DIR/prctl_sandbox.c"

for how in prctl syscall; do
	run_cmd 30 "native-$how" "$WORK/prctl_sandbox" $how
	[ "$RUN_STATUS" = 0 ] || skip "seccomp filters are refused here: $(head -c 300 "$RUN_ERR")"
	expect_eq "$how, native: stdout" "kid 5" "$(cat "$RUN_OUT")"

	RUN_NAME=run-$how mprof_run 60 "$WORK/t-$how" -- "$WORK/prctl_sandbox" $how
	expect_eq "$how, mprof run: exit status" 0 "$RUN_STATUS"
	expect_eq "$how, mprof run: stdout" "kid 5" "$(cat "$RUN_OUT")"
	expect_match "$how, mprof run: the kid forked under the filter is named unrecorded" \
		"1 process forked by process [0-9]+ .* is not recorded: .*seccomp filter" \
		"$(cat "$RUN_ERR")"
	expect_eq "$how: one trace, the program's" 1 "$(ls "$WORK"/t-$how* 2>/dev/null | wc -l)"
	report_json "$WORK/$how.json" "$WORK/t-$how" || continue
	R="$WORK/$how.json"
	expect_eq "$how: exit status, from the exit note" 0 "$(q "$R" summary program.exit_status)"
	expect_eq "$how: allocations (2 + 1 kept, stdout's buffer)" 4 "$(q "$R" summary allocations)"
done
finish
