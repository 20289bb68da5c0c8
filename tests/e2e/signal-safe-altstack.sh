#!/bin/bash
# signal-safe-altstack.sh - every wrapped async-signal-safe function (_exit,
# _Exit, fork, the exec family, the wait family, sigaction, signal) works
# under mprof from a signal handler on an alternate signal stack as small
# as it works on without mprof, plus ALLOWANCE bytes: the wrappers' own
# frames on the way to the C library's function.  For each call, the
# smallest stack that works natively is found first (binary search in
# 16-byte steps, the kernel's signal frame alone is ~2.9 KiB with AVX-512),
# then exit status and output must match native's at that size plus the
# allowance.  The program is linked with -z now: lazy binding's resolver,
# run on the handler's stack, saves the vector registers and would need
# more stack than any call, hiding what the calls need.  Before the fix
# _exit, _Exit, the exec and the wait families died of SIGSEGV there (the
# recording needs KiB: the exit note, the exec notes' copies, the reap
# note's buffers), and fork's child died in its start.
# Program and facts: tests/progs/signal_safe_altstack.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/ssa" "$PROGS_DIR/signal_safe_altstack.c" -Wl,-z,now

ALLOWANCE=128
CALLS="_exit _Exit fork execve execv execl execle fexecve wait waitpid wait3 wait4 waitid sigaction signal"
for call in $CALLS; do
	run_cmd 120 "probe-$call" "$WORK/ssa" probe "$call"
	if [ "$RUN_STATUS" != 0 ]; then
		fail_ "$call: no stack of up to 64 KiB works without mprof ($RUN_STATUS)"
		continue
	fi
	size=$(($(cat "$RUN_OUT") + ALLOWANCE))
	run_cmd 30 "native-$call" "$WORK/ssa" "$call" "$size"
	want_status=$RUN_STATUS
	want_out=$(cat "$RUN_OUT")
	case $call in
	_exit) expect_eq "$call natively on $size bytes" 41 "$want_status" ;;
	_Exit) expect_eq "$call natively on $size bytes" 42 "$want_status" ;;
	fork) expect_eq "$call natively on $size bytes" "fork child
fork done" "$want_out" ;;
	*) expect_eq "$call natively on $size bytes" "$call done" "$want_out" ;;
	esac
	RUN_NAME="r-$call" mprof_run 60 "$WORK/t-$call" -- "$WORK/ssa" "$call" "$size"
	expect_eq "$call on a $size-byte signal stack: exit status as native" "$want_status" "$RUN_STATUS"
	expect_eq "$call on a $size-byte signal stack: stdout as native" "$want_out" "$(cat "$RUN_OUT")"
done
finish
