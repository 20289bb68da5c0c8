#!/bin/bash
# membarrier-refused.sh - a program whose seccomp filter makes membarrier()
# fail with EPERM starts its second thread under the filter.  The recorder
# hands the sequence counter from the first recording thread to the others
# with membarrier(); its failure was ignored, so two threads could take the
# same sequence number.  Now a filter installed through prctl() takes the
# counter from its owner first (no membarrier needed later, and nothing to
# say), and a refusal all the same (a filter installed by the program's own
# system call instruction) is met with a grace period that mprof names.
# Program and facts: tests/progs/membarrier_refused.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/membarrier_refused" "$PROGS_DIR/membarrier_refused.c" -pthread

for how in prctl raw; do
	run_cmd 30 "native-$how" "$WORK/membarrier_refused" $how
	[ "$RUN_STATUS" = 3 ] && skip "the raw seccomp call is written for x86_64 only"
	[ "$RUN_STATUS" = 0 ] || skip "seccomp filters are refused here: $(head -c 300 "$RUN_ERR")"
	expect_eq "$how, native: stdout" "membarrier -1 EPERM" "$(cat "$RUN_OUT")"

	RUN_NAME=run-$how mprof_run 60 "$WORK/t-$how" -- "$WORK/membarrier_refused" $how
	expect_eq "$how, mprof run: exit status" 0 "$RUN_STATUS"
	expect_eq "$how, mprof run: stdout" "membarrier -1 EPERM" "$(cat "$RUN_OUT")"
	if [ $how = prctl ]; then
		expect_no_match "prctl: the counter changed hands before the filter: nothing to say" \
			"membarrier\(\) was refused" "$(cat "$RUN_ERR")"
	else
		expect_match "raw: the refused membarrier and the grace period are named" \
			"^mprof: membarrier\(\) was refused \(EPERM\).* 10 ms wait instead of a memory barrier" \
			"$(cat "$RUN_ERR")"
	fi
	report_json "$WORK/$how.json" "$WORK/t-$how" || continue
	R="$WORK/$how.json"
	expect_eq "$how: allocations (1 + 2 x 10000 + the thread's TLS + stdout's buffer)" 20003 \
		"$(q "$R" summary allocations)"
	expect_eq "$how: frees" 20000 "$(q "$R" summary frees)"
done
finish
