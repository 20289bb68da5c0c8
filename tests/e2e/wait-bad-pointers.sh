#!/bin/bash
# wait-bad-pointers.sh - how a child ended when its parent's wait call is
# given a status, rusage or siginfo pointer the kernel cannot write.  The
# kernel reaps the child and then fails with EFAULT, so the call's return
# value names no child: the recorder's wrapper, which passed the program's
# pointer on, noted nothing, and the child's report said "ended without
# exit()" and "leaks" for a child killed by SIGKILL.  Now the wrapper gives
# the call buffers of its own, notes the child, and copies out, failing
# with EFAULT as natively (preload/wait_copy.c).  Checked for waitpid and
# wait4 with a bad status, wait4 with a bad rusage (the status is still
# written, as natively) and waitid with a bad siginfo; what the calls
# return is the same as without mprof.  The launcher is stopped (SIGSTOP)
# from before the child ends until after it was reaped, so that it cannot
# read the child's status while it is a zombie (it mostly did, and the
# report then said how the child ended without the wrapper's note).
# Program: tests/progs/wait_bad_pointers.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
PROG="$WORK/wait_bad_pointers"
build_c "$PROG" "$PROGS_DIR/wait_bad_pointers.c"

# wait_for_file PATH: until PATH exists, 60 s at most
wait_for_file() {
	local i
	for i in $(seq 600); do
		[ -e "$1" ] && return
		sleep 0.1
	done
}

declare -A OUT=(
	[status]='-1 EFAULT|then -1 ECHILD'
	[wait4]='-1 EFAULT|then -1 ECHILD'
	[usage]='-1 EFAULT|signal 9|then -1 ECHILD'
	[info]='-1 EFAULT|then -1 ECHILD'
)
for how in status wait4 usage info; do
	# without mprof first: the facts the run must keep
	"$PROG" "$how" >"$WORK/$how.native"
	expect_eq "$how: without mprof" "${OUT[$how]}" "$(paste -sd'|' "$WORK/$how.native")"
	mkdir "$WORK/$how" "$WORK/$how-sync"
	"$MPROF" run -q -o "$WORK/$how/t" -- "$PROG" "$how" "$WORK/$how-sync" \
		>"$WORK/$how.out" 2>"$WORK/$how.err" &
	job=$!
	wait_for_file "$WORK/$how-sync/ready"
	expect_true "$how: the child is ready" [ -e "$WORK/$how-sync/ready" ]
	kill -STOP "$job"
	touch "$WORK/$how-sync/go"
	wait_for_file "$WORK/$how-sync/done"
	expect_true "$how: the child was reaped while the launcher was stopped" \
		[ -e "$WORK/$how-sync/done" ]
	kill -CONT "$job"
	wait "$job"
	expect_eq "$how: exit status" 0 "$?"
	expect_eq "$how: what the calls returned" "${OUT[$how]}" "$(paste -sd'|' "$WORK/$how.out")"
	expect_eq "$how: no message" "" "$(cat "$WORK/$how.err")"
	mapfile -t traces < <(traces_by_allocations keep_blocks "$WORK/$how"/t.[0-9]*)
	expect_eq "$how: one child trace" 1 "${#traces[@]}"
	[ -n "${traces[0]:-}" ] || continue
	run_cmd 60 report "$MPROF" report -n 0 "${traces[0]}"
	line=$(grep '^program:' "$RUN_OUT")
	expect_eq "$how: the child: how it ended" 'killed by signal 9 (SIGKILL)' "${line##*), }"
	expect_eq "$how: the child: its live blocks" \
		'live at end:      5000 B (4.9 KiB) in 5 blocks (live when the recording ended)' \
		"$(grep -E '^(leaked|live at end):' "$RUN_OUT")"
done
finish
