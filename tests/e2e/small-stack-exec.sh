#!/bin/bash
# small-stack-exec.sh - exec and spawn calls from a thread with a small
# stack of its own (and from a vfork child on one) run under mprof as
# without it.  The exec wrappers kept about 14 KiB more of stack than the
# C library's calls (copies of the path, LD_PRELOAD and MPROF_SESSION in
# PATH_MAX and 4 KiB buffers, a 4 KiB page cache, a PATH_MAX buffer for a
# $PATH search): on a 16 KiB stack, the smallest glibc allows, every call
# died of SIGSEGV under mprof (the vfork child too, its parent then
# exiting 101).  They now keep about 4 KiB more.
# Program and facts: tests/progs/small_stack_exec.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/small_stack_exec" "$PROGS_DIR/small_stack_exec.c" -pthread

# mode and the exit status it ends with
MODES="spawn:4 execve:3 execvp:3 vfork:3 fails:2"

# the smallest of these stacks every mode runs on without mprof
SMALLEST=
for kib in 16 32 64; do
	fine=1
	for m in $MODES; do
		run_cmd 30 "native-$kib-${m%%:*}" "$WORK/small_stack_exec" "$kib" "${m%%:*}"
		[ "$RUN_STATUS" = "${m##*:}" ] || fine=0
	done
	if [ "$fine" = 1 ]; then
		SMALLEST=$kib
		break
	fi
done
[ -n "$SMALLEST" ] || skip "no stack of 16 to 64 KiB runs every mode natively"
echo "smallest stack natively fine: $SMALLEST KiB"

for m in $MODES; do
	mode=${m%%:*}
	RUN_NAME=$mode mprof_run 60 "$WORK/$mode" -- "$WORK/small_stack_exec" "$SMALLEST" "$mode"
	expect_eq "$mode on a $SMALLEST KiB stack: exit status as without mprof" "${m##*:}" "$RUN_STATUS"
done
finish
