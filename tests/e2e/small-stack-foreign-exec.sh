#!/bin/bash
# small-stack-foreign-exec.sh - a thread with a small stack of its own
# execs (execve) or spawns (posix_spawn) a 32-bit program while the
# environment is large (2000 entries).  The recorder gives such a program
# a copy of the environment without its LD_PRELOAD entry
# (preload/exec_watch.c), which was built on the caller's stack up to
# 32 KiB: with this environment some 16 KiB, so on a 16 KiB stack both
# calls died of SIGSEGV under mprof where they run without it.  A copy
# past 2 KiB now goes in memory mapped for the call.  Exit status, stdout
# and stderr must be native's (the 32-bit loader prints no error of its own
# for the recorder's entry).  Skips where no 32-bit program can be built
# (gcc-multilib) or run.  Programs: tests/progs/small_stack_exec.c,
# tests/progs/foreign_class.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work

if ! $CC -m32 -O1 -o "$WORK/p32" "$PROGS_DIR/foreign_class.c" >"$WORK/build32.log" 2>&1; then
	cat "$WORK/build32.log"
	skip "$CC -m32 cannot build a 32-bit program (gcc-multilib)"
fi
run_cmd 30 native32 "$WORK/p32"
[ "$RUN_STATUS" = 7 ] && [ "$(cat "$RUN_OUT")" = "foreign_class: 4-byte pointers" ] ||
	skip "the kernel cannot run a 32-bit program here (status $RUN_STATUS)"
build_c "$WORK/small_stack_exec" "$PROGS_DIR/small_stack_exec.c" -pthread

for i in $(seq 1 2000); do
	export "SMALL_STACK_FOREIGN_$i=x"
done

# the smallest of these stacks both modes run on without mprof
SMALLEST=
for kib in 16 32 64; do
	fine=1
	for mode in execpath spawnpath; do
		run_cmd 30 "native-$kib-$mode" "$WORK/small_stack_exec" "$kib" "$mode" "$WORK/p32"
		[ "$RUN_STATUS" = 7 ] || fine=0
	done
	if [ "$fine" = 1 ]; then
		SMALLEST=$kib
		break
	fi
done
[ -n "$SMALLEST" ] || skip "no stack of 16 to 64 KiB runs both modes natively"
echo "smallest stack natively fine: $SMALLEST KiB"

for mode in execpath spawnpath; do
	RUN_NAME=$mode mprof_run 60 "$WORK/$mode" -- "$WORK/small_stack_exec" "$SMALLEST" "$mode" "$WORK/p32"
	expect_eq "$mode on a $SMALLEST KiB stack: exit status as without mprof" 7 "$RUN_STATUS"
	expect_eq "$mode: stdout as without mprof" "foreign_class: 4-byte pointers" "$(cat "$RUN_OUT")"
	expect_eq "$mode: the program's stderr, no loader error" "foreign_class: stderr" \
		"$(grep -v '^mprof' "$RUN_ERR")"
done
finish
