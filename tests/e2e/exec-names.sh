#!/bin/bash
# exec-names.sh - the program executes another at once (a shell's
# `exec PROG`): the first trace, FILE, is always the shell's, marked as
# having executed a program, and FILE.PID the program's, with its exact
# allocations, as mprof-run(1) says.  The two process files appear within
# the file system's time granularity, so the launcher must order them by
# creation itself (before it did, FILE was the program's in 10 runs of 30).
# Program and facts: tests/progs/free_in_order.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/free_in_order" "$PROGS_DIR/free_in_order.c"

right=0
for run in 1 2 3 4 5 6 7 8 9 10; do
	mkdir -p "$WORK/r$run"
	RUN_NAME=run$run mprof_run 60 "$WORK/r$run/trace" -- /bin/sh -c 'exec "$1"' sh \
		"$WORK/free_in_order" >/dev/null
	[ "$RUN_STATUS" = 0 ] || continue
	report_json "$WORK/r$run/first.json" "$WORK/r$run/trace" >/dev/null || continue
	set -- "$WORK/r$run"/trace.*
	[ $# = 1 ] && [ -f "$1" ] || continue
	report_json "$WORK/r$run/second.json" "$1" >/dev/null || continue
	first_exe=$(q "$WORK/r$run/first.json" get trace.exe)
	first_state=$(q "$WORK/r$run/first.json" summary end.process_state)
	second_exe=$(q "$WORK/r$run/second.json" get trace.exe)
	second_allocs=$(q "$WORK/r$run/second.json" sum allocations make_block)
	echo "run $run: FILE $first_exe ($first_state), FILE.PID $second_exe ($second_allocs)"
	case $first_exe in */sh | */dash | */bash) ;; *) continue ;; esac
	[ "$first_state" = exec ] && [ "$second_exe" = "$WORK/free_in_order" ] &&
		[ "$second_allocs" = 200 ] && right=$((right + 1))
done
expect_eq "runs whose FILE is the shell's (it executed) and FILE.PID the program's" 10 "$right"
finish
