#!/bin/bash
# system-children.sh - how the children of system() and popen() ended.
# The C library reaps them itself (its internal waitpid, not the wait
# family's wrappers), so a shell that ended by _exit() (dash does) or a
# command it executed that was killed or called _exit() said "ended without
# exit() (by _exit() or a signal: mprof could not see which)".  Now system()
# and pclose() note the status they return with the time the call (or its
# popen()) began, and the launcher gives it to the parent's one child
# started in between, when only one child started then.  What the calls
# return must not change.  A system() that could not start its shell
# (status 127, errno set) gave its 127 to another child that started
# during the call; now it gives it to none.  Programs and facts:
# tests/progs/system_children.c, tests/progs/reaped_children.c,
# tests/progs/system_failed.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
PROG="$WORK/reaped_children"
build_c "$PROG" "$PROGS_DIR/reaped_children.c"
build_c "$WORK/system_children" "$PROGS_DIR/system_children.c"
ln -s reaped_children "$WORK/popen_child"

RUN_NAME=sys mprof_run 60 "$WORK/t" -q -- "$WORK/system_children" "$PROG" "$WORK/popen_child"
expect_eq "exit status" 0 "$RUN_STATUS"
expect_eq "what system() and pclose() returned" \
	"system exec segv: signal 11|system exec quick: exit 4|system sh kill: exit 137|popen exec kill: signal 9|popen exec quick: exit 4|system NULL: shell|two children: pclose: exit 3|two children: fork child: exit 9" \
	"$(paste -sd'|' "$RUN_OUT")"

# end_of PATTERN: how each image whose command matches the glob PATTERN
# ended (its report's program line)
end_of() {
	local t line
	for t in "$WORK"/t.*; do
		[[ $t =~ /t\.[0-9]+(\.[0-9]+)?$ ]] || continue
		line=$("$MPROF" report -n 0 "$t" 2>/dev/null | grep '^program:')
		line=${line#program:          }
		# shellcheck disable=SC2053
		[[ ${line% (pid *} == $1 ]] && echo "${line##*), }"
	done
	return 0
}

expect_eq "system(exec): the command killed by SIGSEGV" "killed by signal 11 (SIGSEGV)" \
	"$(end_of "$PROG end segv")"
expect_eq "system(exec): the command's _exit(4)" "exited with status 4" \
	"$(end_of "$PROG end quick")"
expect_eq "system(exec): the shells executed them" "exec|exec" \
	"$(end_of "sh -c 'exec *reaped_children* end [sq]*'" | paste -sd'|')"
expect_eq "system(sh): the shell's _exit(137)" "exited with status 137" \
	"$(end_of "sh -c *reaped_children* end kill'")"
expect_eq "system(sh): the command the shell reaped" "killed by signal 9 (SIGKILL)" \
	"$(end_of "$PROG end kill")"
expect_eq "popen(exec): the command killed by SIGKILL" "killed by signal 9 (SIGKILL)" \
	"$(end_of "$WORK/popen_child end kill")"
expect_eq "popen(exec): the command's _exit(4)" "exited with status 4" \
	"$(end_of "$WORK/popen_child end quick")"
expect_eq "system(NULL): the shell's exit 0" "exited with status 0" \
	"$(end_of "sh -c 'exit 0'")"
# two children started within one popen()..pclose(): the status goes to
# neither (the fork child's own exit(9) stands)
expect_eq "two children: the fork child's exit(9), not pclose()'s status" \
	"exited with status 9" "$(end_of "$WORK/system_children $PROG $WORK/popen_child")"

# a system() that started no shell (E2BIG), during which a SIGCHLD
# handler's fork child started: that child keeps its own exit(9)
build_c "$WORK/system_failed" "$PROGS_DIR/system_failed.c"
mkdir "$WORK/failed"
RUN_NAME=failed mprof_run 60 "$WORK/failed/t" -q -- "$WORK/system_failed"
expect_eq "failed system(): exit status" 0 "$RUN_STATUS"
expect_eq "failed system(): what the calls returned" \
	"system: exit 127 E2BIG|handler child: exit 9" "$(paste -sd'|' "$RUN_OUT")"
for t in "$WORK"/failed/t.*; do
	[[ $t =~ /t\.[0-9]+$ ]] || continue
	line=$("$MPROF" report -n 0 "$t" 2>/dev/null | grep '^program:')
	echo "${line##*), }"
done >"$WORK/failed.ends"
expect_eq "failed system(): the one child, the handler's, keeps its exit(9)" \
	"exited with status 9" "$(paste -sd'|' "$WORK/failed.ends")"
finish
