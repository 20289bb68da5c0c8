#!/bin/bash
# Hard case 03: fork() without exec(): the child keeps allocating and exits
# through exit(); the parent's trace stays intact and holds nothing of the
# child; the child's own trace is exact.
# Program and facts: tests/progs/cases/03-fork-child-keeps-allocating.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
case_start 03-fork-child-keeps-allocating

build_c "$CASE_DIR/prog" "$CASE_SRC/03-fork-child-keeps-allocating.c"
mkdir "$WORK/traces" "$WORK/rep"
T="$WORK/traces/trace"

mprof_run "$HANG_LIMIT" "$T" -- "$CASE_DIR/prog"
expect_eq "1. exit status" 0 "$RUN_STATUS"
# The parent prints after waitpid(), so the child's line comes first.
expect_eq "1. stdout" "$(printf 'child: work finished\nparent: child exited with 0')" "$(cat "$RUN_OUT")"

# 2. The parent's trace reads whole, without loss or corruption.
report_json "$WORK/rep/parent.json" "$T" || finish
P="$WORK/rep/parent.json"
expect_eq "2. parent: the trace is the root trace" root "$(q "$P" summary meta.trace_role)"
expect_eq "2. parent: trace complete" true "$(q "$P" summary quality.complete)"
expect_eq "2. parent: chunks lost" 0 "$(q "$P" summary quality.chunks_lost)"
expect_eq "2. parent: sequence gaps" 0 "$(q "$P" summary quality.sequence_gaps)"
expect_eq "2. parent: unmatched frees" 0 "$(q "$P" summary unmatched_frees)"
expect_eq "2. parent: diagnostics" 0 "$(q "$P" len summary.diagnostics)"
expect_eq "2. parent: forks" 1 "$(q "$P" summary forks)"
# 3.              FUNCS            allocs bytes  leak-blocks leak-bytes
expect_site "$P" keep_before_fork 6      4200   6 4200
expect_site "$P" parent_churn     6000   576000 0 0
expect_eq "3. parent_churn: every allocation is 96 bytes" 96 "$(q "$P" sizes parent_churn)"
expect_eq "3. parent_churn: calloc calls" 6000 "$(q "$P" summary calls.calloc)"
expect_site "$P" parent_keep      2      1110   2 1110
# 4. Nothing of the child: the 6008 allocations above and stdout's buffer.
expect_no_site "$P" child_churn
expect_no_site "$P" child_keep
expect_eq "4. parent: allocations in all" 6009 "$(q "$P" summary allocations)"

# 5. The child's own trace.
children=$(cd "$WORK/traces" && ls | grep -v '^trace$')
expect_match "5. the child has its own trace FILE.PID" '^trace\.[0-9]+$' "$children"
expect_eq "5. exactly one child trace" 1 "$(printf '%s\n' "$children" | grep -c .)"
C=$(printf '%s\n' "$children" | head -1)
if [ -n "$C" ] && report_json "$WORK/rep/child.json" "$WORK/traces/$C"; then
	F="$WORK/rep/child.json"
	expect_eq "5. child: a fork child's trace" child "$(q "$F" summary meta.trace_role)"
	expect_eq "5. child: chunks lost" 0 "$(q "$F" summary quality.chunks_lost)"
	expect_eq "5. child: unmatched frees" 0 "$(q "$F" summary unmatched_frees)"
	#                FUNCS       allocs bytes   leak-blocks leak-bytes
	expect_site "$F" child_churn 80000  7640000 0 0
	expect_site "$F" child_keep  7      8638    7 8638
	expect_eq "5. child: blocks inherited from the parent" "true 6 4200" \
		"$(q "$F" summary inherited.seeded) $(q "$F" summary inherited.blocks) $(q "$F" summary inherited.bytes)"
	expect_no_site "$F" keep_before_fork
	expect_no_site "$F" parent_churn
	expect_no_site "$F" parent_keep
	# the 80007 allocations above and stdout's buffer
	expect_eq "5. child: allocations in all" 80008 "$(q "$F" summary allocations)"
fi
finish
