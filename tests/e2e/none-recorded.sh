#!/bin/bash
# none-recorded.sh - a run of several processes in which no allocation was
# recorded says so, with the reason, not that no process made one: a run
# started paused that never started recording (nginx under --paused, whose
# own SIGUSR2 handler takes the toggle signal), and a sampled run in which no
# allocation drew a sample.  Before, both ended with "mprof: no process made
# an allocation" after the table, though every process made dozens.
# Program and facts: tests/progs/tree_worker.c (exactly N allocations).
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/tree_worker" "$PROGS_DIR/tree_worker.c"
# the shell forks the first and executes the second: three traces
CMD="'$WORK/tree_worker' 100; '$WORK/tree_worker' 100"

# 1. Started paused, never started: nothing recorded while recording was on.
RUN_NAME=paused mprof_run 60 "$WORK/p" --paused -- /bin/sh -c "$CMD"
expect_eq "1. exit status" 0 "$RUN_STATUS"
expect_eq "1. three rows of 0 allocations" "0 0 0" \
	"$(run_table_rows "$RUN_ERR" | cut -d'|' -f2 | paste -sd' ')"
expect_eq "1. the note says none was recorded, and why" \
	"mprof: no allocation was recorded: the run started paused, and no process made one while recording was on" \
	"$(grep -E '^mprof: no (allocation|process)' "$RUN_ERR")"

# 2. Sampled at one per 1 GiB: 200 blocks of 32 B and the shell's few
# kilobytes draw a sample with a chance of about 1e-5 (and the seed is fixed).
RUN_NAME=sampled mprof_run 60 "$WORK/s" --sample-rate 1G --sample-seed 7 -- /bin/sh -c "$CMD"
expect_eq "2. exit status" 0 "$RUN_STATUS"
expect_eq "2. three rows of 0 allocations" "0 0 0" \
	"$(run_table_rows "$RUN_ERR" | cut -d'|' -f2 | paste -sd' ')"
expect_eq "2. the note says none was recorded, and why" \
	"mprof: no allocation was recorded: none drew a sample (one per 1073741824 B on average)" \
	"$(grep -E '^mprof: no (allocation|process)' "$RUN_ERR")"
finish
