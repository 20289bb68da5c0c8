#!/bin/bash
# pid-reuse-first.sh - a process killed and reaped before the launcher first
# looked at it, whose pid went to another process (late, which runs on for
# 3 s after the program ends), is said to have ended: the launcher's first
# look checks that the pid's process started before the process file was
# made, as its later looks do.  Its trace said "running" (the launcher took
# the newcomer for it) and the launcher waited for it at the end.  Run on
# both of the pid guard's paths (pidfds, and start times alone:
# MPROF_TEST_PID_GUARD=start-time).  mprof runs in a PID namespace of its
# own (unshare -p -f --mount-proc), where the program can choose the next
# pid (ns_last_pid); skipped where that cannot be made.
# Program and facts: tests/progs/pid_reuse.c ("first").
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/pid_reuse" "$PROGS_DIR/pid_reuse.c"
command -v unshare >/dev/null 2>&1 || skip "no unshare(1) here"

for guard in pidfd start-time; do
	mkdir -p "$WORK/$guard"
	# sh stays the namespace's init, so the program may stop the launcher
	MPROF_TEST_PID_GUARD=$guard run_cmd 60 "reuse-$guard" unshare -p -f --mount-proc sh -c \
		'"$1" run -o "$2" -- "$3" first; exit $?' sh "$MPROF" "$WORK/$guard/t" "$WORK/pid_reuse"
	[ "$RUN_STATUS" -eq 77 ] && skip "the pid could not be reused here: $(program_stderr "$RUN_ERR")"
	if [ "$RUN_STATUS" -ne 0 ] && ! grep -q '^mprof' "$RUN_ERR"; then
		skip "no PID namespace here: $(head -c 300 "$RUN_ERR")"
	fi
	expect_eq "$guard: exit status" 0 "$RUN_STATUS"
	pid=$(sed -n 's/^reused \([0-9]*\)$/\1/p' "$RUN_OUT")
	expect_match "$guard: the newcomer got the ended process's pid" '^[0-9]+$' "$pid"

	early=
	for f in "$WORK/$guard"/t.*; do
		case "$f" in *.json*) continue ;; esac
		"$MPROF" report --format json "$f" >"$f.json" 2>/dev/null || continue
		[ "$(q "$f.json" sum allocations early_block)" = 3 ] && early=$f
	done
	expect_ne "$guard: the ended process has a trace" "" "$early"
	[ -n "$early" ] || continue
	report_json "$WORK/$guard.json" "$early"
	R=$WORK/$guard.json
	expect_eq "$guard: its pid" "$pid" "$(json_eval "$R" "d['summary']['program']['pid']")"
	expect_eq "$guard: it ended" ended "$(json_eval "$R" "d['summary']['end']['process_state']")"
done
finish
