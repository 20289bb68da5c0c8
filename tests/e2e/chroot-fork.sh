#!/bin/bash
# chroot-fork.sh - a process that changed its root directory and then
# forked: the child's recorder cannot find mprof's session directory, so
# the child runs unrecorded; also with Chromium's sandbox root, /proc of a
# process that ended.  Before, mprof gave only the errno ("No such
# file or directory"); now it says why the directory is gone.
# Needs root (skipped otherwise).
# Program and facts: tests/progs/chroot_fork.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
[ "$(id -u)" = 0 ] || skip "not root: cannot chroot"
build_c "$WORK/chroot_fork" "$PROGS_DIR/chroot_fork.c"
mkdir "$WORK/root"

RUN_NAME=cf mprof_run 60 "$WORK/t" -- "$WORK/chroot_fork" "$WORK/root"
[ "$RUN_STATUS" = 77 ] && skip "chroot refused"
expect_eq "exit status" 0 "$RUN_STATUS"
expect_eq "stdout as without mprof" "worker status 0" "$(cat "$RUN_OUT")"
expect_eq "the warning names the worker and why" 1 \
	"$(grep -c "^mprof: warning: 1 process forked by process [0-9]* ($WORK/chroot_fork) is not recorded: its recorder could not create its process file (No such file or directory; a process that changed its root directory (chroot) or mount namespace no longer sees mprof's session directory)$" "$RUN_ERR")"
expect_eq "one trace: the program's" "t" "$(cd "$WORK" && ls t t.* 2>/dev/null | grep -v html | paste -sd' ')"
report_json "$WORK/t.json" "$WORK/t" &&
	expect_eq "the program's allocations: 2 before chroot, stdout's buffer" 3 \
		"$(json_eval "$WORK/t.json" 'd["summary"]["allocations"]')"

# Chromium's sandbox: the root is /proc/PID/fdinfo of a child that ended,
# where every path walk gives ESRCH ("No such process", which mprof gave
# without a word of why)
RUN_NAME=proc mprof_run 60 "$WORK/p" -- "$WORK/chroot_fork" --proc-of-ended
[ "$RUN_STATUS" = 77 ] && skip "chroot to /proc/self/fdinfo refused"
expect_eq "proc root: exit status" 0 "$RUN_STATUS"
expect_eq "proc root: stdout as without mprof" "worker status 0" "$(cat "$RUN_OUT")"
expect_eq "proc root: the warning names the worker and why" 1 \
	"$(grep -c "^mprof: warning: 1 process forked by process [0-9]* ($WORK/chroot_fork) is not recorded: its recorder could not create its process file (No such process; a process that changed its root directory (chroot) or mount namespace no longer sees mprof's session directory)$" "$RUN_ERR")"
expect_eq "proc root: one trace: the program's" "p" "$(cd "$WORK" && ls p p.* 2>/dev/null | grep -v html | paste -sd' ')"
finish
