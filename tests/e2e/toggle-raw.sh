#!/bin/bash
# toggle-raw.sh - the rt_sigaction system call made through syscall(2) on
# the toggle signal (preload/syscall_wrap.c looks at it) answers as without
# mprof: a new action at an address the kernel cannot read fails with
# EFAULT rather than a fault in the recorder, and the old action read back
# is the default one, not mprof's handler.  Program and facts:
# tests/progs/toggle_raw.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/toggle_raw" "$PROGS_DIR/toggle_raw.c"

want='unreadable page: -1 EFAULT
address 8: -1 EFAULT
read back: 0, handler 0, flags 0, restorer 0, mask 0'
expect_eq "without mprof: stdout" "$want" "$(timeout 30 "$WORK/toggle_raw" 2>&1)"
for opts in "--paused" "--toggle-signal RTMIN+3"; do
	name=${opts//[ +]/_}
	# shellcheck disable=SC2086 # the options are words
	RUN_NAME=$name mprof_run 60 "$WORK/$name.trace" $opts -- "$WORK/toggle_raw"
	expect_eq "$opts: exit status" 0 "$RUN_STATUS"
	expect_eq "$opts: stdout" "$want" "$(cat "$RUN_OUT")"
done
finish
