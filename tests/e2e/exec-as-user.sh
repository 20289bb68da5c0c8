#!/bin/bash
# exec-as-user.sh - a process that changed its user and then executed a
# program (su, a daemon dropping root): the program's recorder cannot write
# in mprof's session directory, so it runs unrecorded.  Before, mprof gave
# the wrong reason ("its loader could not load mprof's library, as in a
# chroot without it, or it ended first"); now it names the user change.
# Needs root (skipped otherwise).
# Program and facts: tests/progs/exec_as_user.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
[ "$(id -u)" = 0 ] || skip "not root: cannot change the user"
build_c "$WORK/exec_as_user" "$PROGS_DIR/exec_as_user.c"
chmod 755 "$WORK" "$WORK/exec_as_user"

RUN_NAME=eu mprof_run 60 "$WORK/t" -- "$WORK/exec_as_user"
[ "$RUN_STATUS" = 77 ] && skip "setuid(65534) refused"
expect_eq "exit status: true's" 0 "$RUN_STATUS"
expect_eq "stdout as without mprof: empty" "" "$(cat "$RUN_OUT")"
expect_eq "the warning names the user change" 1 \
	"$(grep -c "^mprof: warning: process [0-9]* ($WORK/exec_as_user) executed /bin/true, which is not recorded: the process had changed its user to uid 65534 (as su and daemons dropping root do), which cannot write in mprof's session directory, so the recorder could not start in it$" "$RUN_ERR")"
expect_eq "no warning blames the loader" 0 "$(grep -c "could not load mprof's library" "$RUN_ERR")"
expect_eq "one trace: the program's" "t" "$(cd "$WORK" && ls t t.* 2>/dev/null | grep -v html | paste -sd' ')"

run_cmd 60 rt "$MPROF" report -n 0 "$WORK/t"
expect_eq "report: exit status" 0 "$RUN_STATUS"
expect_match "report: state exec" "^program: .*exec_as_user \(pid [0-9]+\), exec$" "$(cat "$RUN_OUT")"
expect_eq "report: what it executed and why it is not recorded" \
	"executed:         /bin/true, not recorded: the process had changed its user to uid 65534 (as su and daemons dropping root do), which cannot write in mprof's session directory, so the recorder could not start in it" \
	"$(grep '^executed:' "$RUN_OUT")"
expect_match "report: its 3 blocks of 48 B live at exec, not leaks" \
	"^leaked: +144 B in 3 blocks \(live at exec\)" "$(cat "$RUN_OUT")"
finish
