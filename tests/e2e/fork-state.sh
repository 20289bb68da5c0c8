#!/bin/bash
# fork-state.sh - a fork child starts in its parent's recording state at
# the fork, not in the state `mprof run` started the program in: an exact
# run switched to sampling by mprof_start(4096) forks a child whose trace
# is sampled at 4096 B (it was reported "exact: every allocation recorded"
# with weighted counts), and the child's frees of the parent's unsampled
# blocks are frees of unrecorded blocks (they counted as unmatched); a
# child forked while recording was stopped is reported recorded in part
# (it was reported exact, with the blocks it made while stopped in no
# count).  Program and facts: tests/progs/fork_state.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/fork_state" "$PROGS_DIR/fork_state.c" -fno-builtin -I"$abs_top_srcdir/include"

# ---- switched to sampling before the fork ----
RUN_NAME=s mprof_run 60 "$WORK/s.trace" --sample-seed 5 -- "$WORK/fork_state" sampled
expect_eq "sampled: exit status" 0 "$RUN_STATUS"
expect_eq "sampled: stdout" "fork_state sampled child,fork_state sampled parent" \
	"$(paste -sd, "$RUN_OUT")"
set -- "$WORK"/s.trace.*
expect_eq "sampled: one child trace" 1 "$#"
CHILD=$1
report_json "$WORK/p.json" "$WORK/s.trace"
report_json "$WORK/c.json" "$CHILD"
expect_eq "sampled child: a sampled trace at 4096 B, with its seed" "True 4096 True" \
	"$(json_eval "$WORK/c.json" '" ".join(str(x) for x in (d["summary"]["sampled"], d["summary"]["sample_rate_bytes"], d["summary"]["sample_seed"] is not None))')"
expect_eq "sampled child: every free recorded, none unmatched" "1020 0" \
	"$(json_eval "$WORK/c.json" '"%d %d" % (d["summary"]["calls"]["free"], d["summary"]["unmatched_frees"])')"
# the parent recorded before_switch's 20 and after_switch's samples; the
# child's other frees are of blocks the parent never recorded
PARENT_RECORDED=$(json_eval "$WORK/p.json" 'd["summary"]["calls"]["malloc"]')
echo "parent's recorded mallocs: $PARENT_RECORDED (20 exact, the rest sampled)"
expect_eq "sampled child: frees of unrecorded blocks = 1020 less the parent's recorded blocks" \
	"$((1020 - PARENT_RECORDED))" \
	"$(json_eval "$WORK/c.json" 'd["summary"]["frees_of_unrecorded_blocks"]')"
run_cmd 60 ct "$MPROF" report -n 0 "$CHILD"
expect_match "sampled child text: the header says estimated" \
	'^mprof report: .* \(estimated, sample rate 4096 B \(4.0 KiB\): counts and bytes are estimates\)$' \
	"$(head -n 1 "$RUN_OUT")"
expect_match "sampled child text: 0 unmatched" '^                  0 unmatched frees; ' "$(cat "$RUN_OUT")"

# ---- stopped before the fork ----
RUN_NAME=t mprof_run 60 "$WORK/t.trace" -- "$WORK/fork_state" stopped
expect_eq "stopped: exit status" 0 "$RUN_STATUS"
set -- "$WORK"/t.trace.*
expect_eq "stopped: one child trace" 1 "$#"
CHILD=$1
report_json "$WORK/t.json" "$CHILD"
expect_eq "stopped child: started paused, one start" "True 1 0" \
	"$(json_eval "$WORK/t.json" '"%s %d %d" % (d["summary"]["recording"]["paused_at_start"], d["summary"]["recording"]["starts"], d["summary"]["recording"]["stops"])')"
expect_eq "stopped child: 7 allocations, 7 leaked blocks of 7168 B, in child_leak" "7 7 7168 7 7168" \
	"$(json_eval "$WORK/t.json" '"%d %d %d %d %d" % (d["summary"]["allocations"], d["summary"]["leaked_blocks"], d["summary"]["leaked_bytes"], site("child_leak")[0]["leaked_blocks"], site("child_leak")[0]["leaked_bytes"])')"
run_cmd 60 tt "$MPROF" report -n 0 "$CHILD"
expect_match "stopped child text: exact only while recording was on" \
	'^mprof report: .* \(exact while recording was on; see recorded\)$' "$(head -n 1 "$RUN_OUT")"
expect_match "stopped child text: started paused" '^recorded: .*started paused, 0 stops, 1 start' \
	"$(cat "$RUN_OUT")"
finish
