#!/bin/bash
# sandbox-exec-lookups.sh - a program whose seccomp filter kills the process
# on getxattr, statfs and capget, calls no exec makes, starts programs by
# fork and execv and by posix_spawn, under mprof as without it: every child
# exits 0.  The exec wrappers asked whether the program would run in
# secure-execution mode with a getxattr of its file capabilities (every
# exec) and a statfs of its mount (a set-ID file): each child was killed by
# SIGSYS before its exec.  Under a filter they now make neither call.
# Programs: /bin/true (or true in PATH) and a set-user-ID copy of it.
# Program and facts: tests/progs/sandbox_exec_lookups.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/sandbox_exec_lookups" "$PROGS_DIR/sandbox_exec_lookups.c"
true_path=$(command -v true 2>/dev/null)
[ -x /bin/true ] && true_path=/bin/true
case $true_path in /*) ;; *) skip "no true program found" ;; esac
cp "$true_path" "$WORK/setid_true" || hard_error "cannot copy $true_path"
chmod u+s "$WORK/setid_true" || hard_error "cannot set the set-user-ID bit"
cp "$true_path" "$WORK/plain_true" || hard_error "cannot copy $true_path"
want="plain_true fork: exit 0
plain_true spawn: exit 0
setid_true fork: exit 0
setid_true spawn: exit 0"

run_cmd 30 native "$WORK/sandbox_exec_lookups" "$WORK/plain_true" "$WORK/setid_true"
[ "$RUN_STATUS" = 0 ] || skip "seccomp filters are refused here: $(head -c 300 "$WORK/native.err")"
expect_eq "native: stdout" "$want" "$(cat "$WORK/native.out")"

mprof_run 60 "$WORK/t" -- "$WORK/sandbox_exec_lookups" "$WORK/plain_true" "$WORK/setid_true"
expect_eq "mprof run: exit status" 0 "$RUN_STATUS"
# (before: each line said "signal 31", the child killed by the filter)
expect_eq "mprof run: stdout" "$want" "$(cat "$RUN_OUT")"
expect_no_match "mprof run: no SIGSYS" "signal 31|SIGSYS" "$(cat "$RUN_ERR")"
finish
