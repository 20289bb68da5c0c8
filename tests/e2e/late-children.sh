#!/bin/bash
# late-children.sh - a program that starts 6 children (fork, posix_spawn,
# vfork and exec) and ends without waiting for them: in each of 12 runs
# every child has a trace, holding its 50 allocations unless mprof says
# the child was still running when the program ended (mprof does not wait
# for running descendants).  (Before the launcher looked for the run's
# processes that had no process file yet, about a quarter of such runs lost
# a child's trace without a word.)
# Program and facts: tests/progs/late_children.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/late_children" "$PROGS_DIR/late_children.c"

complete=0
for run in $(seq 12); do
	mkdir "$WORK/r$run"
	RUN_NAME="run$run" mprof_run 60 "$WORK/r$run/trace" -- "$WORK/late_children"
	[ "$RUN_STATUS" = 0 ] || { expect_eq "run $run: exit status" 0 "$RUN_STATUS"; continue; }
	children=0
	right=0
	for t in "$WORK/r$run"/trace.*; do
		[ -f "$t" ] || continue
		children=$((children + 1))
		report_json "$t.json" "$t" || continue
		# its 50 allocations, or its trace ends with the child running
		if [ "$(q "$t.json" sum allocations child_work)" = 50 ] ||
			"$MPROF" report "$t" 2>/dev/null | grep -q '^program:.*, running$'; then
			right=$((right + 1))
		fi
	done
	[ "$children" = 6 ] && [ "$right" = 6 ] && complete=$((complete + 1))
	echo "run $run: $children child traces, $right with 50 allocations or running"
done
expect_eq "runs with all 6 child traces, each with its 50 allocations or said running" 12 \
	"$complete"
expect_eq "stdout of the last run" "started 6 children" "$(cat "$RUN_OUT")"
finish
