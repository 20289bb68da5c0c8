#!/bin/bash
# Shared case 03: fork() without exec(): the child keeps allocating and exits
# through exit(); the parent's trace stays intact and holds nothing of the
# child; the child's own trace is exact.
. "$abs_top_srcdir/tests/e2e/lib.sh"
case_setup 03-fork-child-keeps-allocating
mkdir "$WORK/traces" "$WORK/rep"
T="$WORK/traces/trace"

mprof_run 30 "$T" -- ./prog
expect_eq "1. exit status" 0 "$RUN_STATUS"
expect_match "1. stdout has 'child done'" "^child done$" "$(cat "$RUN_OUT")"
expect_match "1. stdout has 'parent done, child status 0'" "^parent done, child status 0$" "$(cat "$RUN_OUT")"
report_json "$WORK/rep/parent.json" "$T"
P="$WORK/rep/parent.json"
expect_site "$P" before_fork_leak - - 4 4444
expect_site "$P" parent_leak - - 3 999
expect_site "$P" parent_churn 5000 320000 0 0
expect_eq "3. parent_churn: every allocation is 64 bytes" 64 "$(q "$P" sizes parent_churn)"
expect_no_site "$P" child_churn
expect_no_site "$P" child_leak

children=$(cd "$WORK/traces" && ls | grep -v '^trace$')
expect_match "5. the child has its own trace FILE.PID" '^trace\.[0-9]+$' "$children"
expect_eq "5. exactly one child trace" 1 "$(printf '%s\n' "$children" | grep -c .)"
C=$(printf '%s\n' "$children" | head -1)
if [ -n "$C" ] && report_json "$WORK/rep/child.json" "$WORK/traces/$C"; then
	expect_site "$WORK/rep/child.json" child_churn 100000 - 0 0
	expect_site "$WORK/rep/child.json" child_leak 9 8991 9 8991
	expect_no_site "$WORK/rep/child.json" parent_churn
	expect_no_site "$WORK/rep/child.json" parent_leak
fi
finish
