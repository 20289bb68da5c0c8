#!/bin/bash
# fork-exec-children.sh - a forked child and an exec'd child get their own
# trace files (FILE.PID), the parent's profile holds nothing of theirs, and
# each child's trace holds exactly its own counts; a child made by the C
# library's clone() without CLONE_VM (no fork handler runs in it) writes
# nothing into its parent's trace, and one made by the raw clone or clone3
# system call through syscall() is recorded as a fork child.
# A child forked after its parent gave up root cannot create its process
# file: it runs unrecorded, and the launcher names it and why (before, not a
# word); a file size limit below a process file's size is named as the
# reason the recorder never started.
# Programs and facts: tests/progs/fork_exec.c, tests/progs/clone_child.c,
# tests/progs/drop_user.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/fork_exec" "$PROGS_DIR/fork_exec.c"
mkdir "$WORK/traces" "$WORK/rep"
T="$WORK/traces/trace"

mprof_run 60 "$T" -- "$WORK/fork_exec"
expect_eq "exit status" 0 "$RUN_STATUS"
expect_match "stdout: fork child exited 0" '^fork child [0-9]+ status 0$' "$(cat "$RUN_OUT")"
expect_match "stdout: exec child exited 0" '^exec child [0-9]+ status 0$' "$(cat "$RUN_OUT")"
FORK_PID=$(sed -n 's/^fork child \([0-9]*\) status.*/\1/p' "$RUN_OUT")
EXEC_PID=$(sed -n 's/^exec child \([0-9]*\) status.*/\1/p' "$RUN_OUT")

# The parent.
report_json "$WORK/rep/parent.json" "$T"
P="$WORK/rep/parent.json"
expect_site "$P" parent_before_fork 2 1000 2 1000
expect_site "$P" parent_after_fork 6 3600 1 600
expect_no_site "$P" fork_child_work
expect_no_site "$P" exec_child_work

# Every other trace is named FILE.PID (FILE.PID.N for a later image of the
# same process, after exec); classify them by content.
others=$(cd "$WORK/traces" && ls | grep -v '^trace$')
bad_names=$(printf '%s\n' "$others" | grep -Ev '^trace\.[0-9]+(\.[0-9]+)?$')
expect_eq "child traces are named FILE.PID or FILE.PID.N" "" "$bad_names"
fork_traces='' exec_traces=''
for f in $others; do
	report_json "$WORK/rep/$f.json" "$WORK/traces/$f" || continue
	[ "$(q "$WORK/rep/$f.json" sites fork_child_work)" != 0 ] && fork_traces="$fork_traces $f"
	[ "$(q "$WORK/rep/$f.json" sites exec_child_work)" != 0 ] && exec_traces="$exec_traces $f"
done
expect_eq "the fork child's trace is trace.$FORK_PID (and only it has fork_child_work)" \
	" trace.$FORK_PID" "$fork_traces"
expect_match "exactly one trace has exec_child_work, that of pid $EXEC_PID" \
	"^ trace\.$EXEC_PID(\.[0-9]+)?$" "$exec_traces"

F="$WORK/rep/trace.$FORK_PID.json"
if [ -f "$F" ]; then
	expect_site "$F" fork_child_work 10 1230 4 492
	expect_no_site "$F" exec_child_work
	expect_no_site "$F" parent_after_fork
	expect_eq "fork child: unmatched frees" 0 "$(q "$F" summary unmatched_frees)"
fi
E=$(for f in $exec_traces; do echo "$WORK/rep/$f.json"; done | head -1)
if [ -n "$E" ]; then
	expect_site "$E" exec_child_work 8 2568 3 963
	expect_no_site "$E" fork_child_work
	expect_no_site "$E" parent_before_fork
	expect_no_site "$E" parent_after_fork
	expect_eq "exec child: unmatched frees" 0 "$(q "$E" summary unmatched_frees)"
fi

# clone(), the raw clone system call and clone3(), each without CLONE_VM:
# the parent's trace is whole and exact.  The child of clone() shares its
# parent's rings in memory but records nothing into them, and mprof names
# it; one made through syscall() runs the fork handlers and has a trace of
# its own.
build_c "$WORK/clone_child" "$PROGS_DIR/clone_child.c"
for mode in clone syscall clone3 clone-fork; do
	RUN_NAME="clone-$mode" mprof_run 60 "$WORK/clone-$mode.trace" -- "$WORK/clone_child" $mode
	[ "$RUN_STATUS" = 77 ] && continue # clone3 refused by this kernel or sandbox
	expect_eq "$mode: exit status (the child's)" 5 "$RUN_STATUS"
	C="$WORK/rep/clone-$mode.json"
	report_json "$C" "$WORK/clone-$mode.trace" || continue
	expect_site "$C" parent_work 1000 111000 1000 111000
	expect_no_site "$C" child_work
	expect_eq "$mode: allocations (the parent's only)" 1000 "$(q "$C" summary allocations)"
	expect_eq "$mode: no event missing" 0 "$(q "$C" summary quality.missing_events)"
	expect_eq "$mode: no chunk lost" 0 "$(q "$C" summary quality.chunks_lost)"
	if [ "$mode" = syscall ] || [ "$mode" = clone3 ]; then
		# exactly the child's own allocations in its trace
		expect_eq "$mode: the parent's trace and the child's" 2 \
			"$(cd "$WORK" && ls clone-$mode.trace* | grep -cE '^clone-[a-z0-9]+\.trace(\.[0-9]+)?$')"
		for t in "$WORK"/clone-$mode.trace.*; do
			[[ $t =~ \.trace\.[0-9]+$ ]] || continue
			report_json "$C.child" "$t" || continue
			expect_site "$C.child" child_work 1000 999000 1000 999000
			expect_no_site "$C.child" parent_work
			expect_eq "$mode: the child's allocations" 1000 "$(q "$C.child" summary allocations)"
		done
		continue
	fi
	expect_eq "$mode: the child of clone() is named" 1 \
		"$(grep -c "^mprof: warning: 1 process made by process [0-9]* (.*/clone_child) with clone() (or a clone system call) on a stack of its own is not recorded" "$RUN_ERR")"
	# the unseen child's own fork child has no trace that names the parent
	expect_eq "$mode: the parent's trace only" "clone-$mode.trace" \
		"$(cd "$WORK" && ls clone-$mode.trace* | tr '\n' ' ' | sed 's/ $//')"
done

build_c "$WORK/drop_user" "$PROGS_DIR/drop_user.c"
chmod 755 "$WORK" "$WORK/drop_user"
RUN_NAME=drop-user mprof_run 60 "$WORK/drop-user.trace" -- "$WORK/drop_user"
if [ "$RUN_STATUS" = 77 ]; then
	echo "# not root: the drop_user checks are skipped"
else
	expect_eq "drop_user: exit status" 0 "$RUN_STATUS"
	expect_match "drop_user: stdout as without mprof" '^worker [0-9]+ status 0$' \
		"$(cat "$RUN_OUT")"
	line=$(grep 'forked by process' "$RUN_ERR")
	expect_match "drop_user: the warning names the worker and why" \
		"^mprof: warning: 1 process forked by process [0-9]+ \(.*/drop_user\) is not recorded: its recorder could not create its process file \(Permission denied; a process that changed its user" \
		"$line"
	expect_eq "drop_user: the parent's trace only" "drop-user.trace" \
		"$(cd "$WORK" && ls drop-user.trace* | grep -v html | tr '\n' ' ' | sed 's/ $//')"
	report_json "$WORK/rep/drop-user.json" "$WORK/drop-user.trace" &&
		expect_eq "drop_user: the parent's allocations (2 before, 3 after, stdout's buffer)" 6 \
			"$(q "$WORK/rep/drop-user.json" summary allocations)"
fi

# The recorder does not start under a file size limit below its process
# file's size (growing the file would raise SIGXFSZ in the program).
RUN_NAME=fsize run_cmd 60 fsize bash -c 'ulimit -f 64 && exec "$@"' sh "$MPROF" run \
	-o "$WORK/fsize.trace" -- "$WORK/fork_exec"
expect_eq "ulimit -f 64: the program's exit status" 0 "$RUN_STATUS"
expect_match "ulimit -f 64: the note names the limit" \
	"^mprof: no data came from .*fork_exec: the recorder never started in it \(the file size limit, ulimit -f 64 KiB, is below" \
	"$(grep 'no data came' "$RUN_ERR")"
finish
