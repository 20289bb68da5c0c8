#!/bin/bash
# foreign-child.sh - a 64-bit program of the run starts a 32-bit one, whose
# loader cannot load mprof's 64-bit recorder.  Before, the child inherited
# the recorder in LD_PRELOAD and its loader printed "ERROR: ld.so: object
# '...' from LD_PRELOAD cannot be preloaded (wrong ELF class: ELFCLASS64):
# ignored." on the child's stderr, and mprof said nothing of the child
# (or, where a binfmt_misc emulator runs 32-bit programs, recorded the
# emulator).  Now the recorder's exec and posix_spawn wrappers take the
# recorder out of such a program's LD_PRELOAD and count it, and mprof says
# which program ran unrecorded and why.
#  1. posix_spawn, fork + execv, vfork + execv, system, popen, and an execv
#     of the parent itself: exit status, stdout and stderr as without
#     mprof, and one warning naming the 32-bit program.
#  2. the user's own LD_PRELOAD entry (libm.so.6, which both loaders find)
#     reaches the child, without the recorder's.
# Skips where no 32-bit program can be built (gcc-multilib) or run: a
# kernel without 32-bit support (as under some hypervisors) runs them only
# through a binfmt_misc emulator (qemu-user's qemu-i386, registered by root).
# Programs: tests/progs/foreign_child.c, tests/progs/foreign_class.c.
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
build_c "$WORK/fc" "$PROGS_DIR/foreign_child.c"
sh_exe=$(readlink -f /bin/sh)
why="it is a 32-bit program: its loader cannot load mprof's recorder"

# expect_one_warning HOW EXE: mprof's only warning names $WORK/p32, started
# by a process running EXE (pids written as N).
expect_one_warning() {
	local how=$1 exe=$2 err="$WORK/mprof-$1.err"
	local started="mprof: warning: 1 program started by process N ($exe) is not recorded: $WORK/p32; $why"
	local executed="mprof: warning: process N ($exe) executed $WORK/p32, which is not recorded: $why"

	expect_eq "$how: one warning" 1 "$(grep -c '^mprof: warning' "$err")"
	expect_eq "$how: it names the 32-bit program and why" 1 \
		"$(sed -E 's/process [0-9]+ /process N /' "$err" | grep -cxF -e "$started" -e "$executed")"
}

# 1. each way of starting it
for how in spawn fork vfork system popen; do
	expect_as_native 30 "$how" 0 "$WORK/t-$how" "$WORK/fc" "$how" "$WORK/p32"
	case $how in
	system | popen) expect_one_warning "$how" "$sh_exe" ;;
	*) expect_one_warning "$how" "$WORK/fc" ;;
	esac
done
# its LD_PRELOAD entry twice: the last, which the loader reads, is the one
# taken out, and the first must not then be read instead
expect_as_native 30 spawn-twice 0 "$WORK/t-spawn-twice" "$WORK/fc" spawn-twice "$WORK/p32"
expect_one_warning spawn-twice "$WORK/fc"
expect_as_native 30 exec 7 "$WORK/t-exec" "$WORK/fc" exec "$WORK/p32"
expect_one_warning exec "$WORK/fc"

# 2. the user's LD_PRELOAD entry stays, the recorder's goes
LD_PRELOAD=libm.so.6 FOREIGN_CLASS_SHOW_PRELOAD=1 \
	expect_as_native 30 user-preload 0 "$WORK/t-user" "$WORK/fc" spawn "$WORK/p32"
expect_eq "user's LD_PRELOAD: the child sees it alone" "foreign_class: LD_PRELOAD=libm.so.6" \
	"$(grep LD_PRELOAD "$WORK/mprof-user-preload.out")"
finish
