#!/bin/bash
# unseen-session.sh - a program that hides mprof's session directory from
# itself (a mount namespace of its own, a tmpfs over the directory's
# parent, as a sandbox does) and then starts programs by posix_spawn, by
# execv in a vfork child and by its own execv: none can be recorded, and
# mprof names each with the reason.  Before, the spawned and vfork-started
# programs were named nowhere (dash starts every simple command so), and the
# program the process executed itself was said to have a loader that could
# not load mprof's library.  Needs root and a mount namespace of its own
# (skipped otherwise).
# Program and facts: tests/progs/unseen_session.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
[ "$(id -u)" = 0 ] || skip "not root: cannot mount a tmpfs"
case "$WORK" in
/tmp/* | /dev/shm/*) skip "the scratch directory is under /tmp or /dev/shm, which the program may mount over" ;;
esac
build_c "$WORK/unseen_session" "$PROGS_DIR/unseen_session.c"
EXPECTED_OUT='child ran
spawned: status 0
child ran
vfork child: status 0
last image'
WHY="the process had changed its root directory (chroot) or mounted over mprof's session directory in a mount namespace of its own, where the recorder cannot create a process file"
PROG="$WORK/unseen_session"

run_cmd 60 native "$PROG"
[ "$RUN_STATUS" = 77 ] && skip "a mount namespace or a tmpfs mount was refused"
expect_eq "without mprof: exit status" 0 "$RUN_STATUS"
expect_eq "without mprof: stdout" "$EXPECTED_OUT" "$(cat "$RUN_OUT")"

mprof_run 60 "$WORK/t" -- "$PROG"
expect_eq "exit status as without mprof" 0 "$RUN_STATUS"
expect_eq "stdout as without mprof" "$EXPECTED_OUT" "$(cat "$RUN_OUT")"
expect_eq "stderr: only mprof's lines" "" "$(program_stderr "$RUN_ERR")"
expect_eq "the spawned and vfork-started programs are named, with the reason" 1 \
	"$(grep -c "^mprof: warning: 2 programs started by process [0-9]* ($PROG) are not recorded: $PROG (and 1 more); $WHY\$" "$RUN_ERR")"
expect_eq "the program it executed itself is named, with the reason" 1 \
	"$(grep -c "^mprof: warning: process [0-9]* ($PROG) executed $PROG, which is not recorded: $WHY\$" "$RUN_ERR")"
expect_eq "no other warning" 2 "$(grep -c '^mprof: warning:' "$RUN_ERR")"
expect_eq "one trace: the program's" "t" "$(cd "$WORK" && ls t t.* 2>/dev/null | grep -v html | paste -sd' ')"
report_json "$WORK/t.json" "$WORK/t" && {
	expect_eq "the trace ends in state exec" exec "$(q "$WORK/t.json" summary end.process_state)"
	expect_eq "the trace says why the program executed is not recorded" "$WHY" \
		"$(q "$WORK/t.json" summary end.exec_into_why)"
}
finish
