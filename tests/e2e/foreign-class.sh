#!/bin/bash
# foreign-class.sh - a program whose loader cannot load mprof's 64-bit
# recorder: a 32-bit one (gcc -m32), and one for another machine (a copy of
# /bin/true whose header says aarch64).  Before, mprof put the recorder in
# its LD_PRELOAD, and the 32-bit loader printed "wrong ELF class" on the
# program's stderr; where the kernel cannot run the file (no 32-bit support,
# another machine) mprof handed it to /bin/sh as execvp does, which read
# the binary as a script: "Syntax error", exit status 2.  Now mprof says
# once what the program is, runs it without LD_PRELOAD, and an ELF file the
# kernel refuses fails as in a shell: exit status 126, "Exec format error".
#  1. 32-bit: the warning once, no trace; where the kernel runs it, exit
#     status, stdout and stderr as without mprof (no loader error); where
#     it cannot, 126 and mprof's "cannot execute" line only.
#  2. another machine (runnable nowhere here): the warning, 126, no
#     shell's message.
# Program: tests/progs/foreign_class.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work

# 2. another machine: e_machine (offset 18) set to EM_AARCH64 (183)
if [ "$(uname -m)" = x86_64 ]; then
	cp /bin/true "$WORK/other_machine" || hard_error "cannot copy /bin/true"
	printf '\267\000' | dd of="$WORK/other_machine" bs=1 seek=18 conv=notrunc status=none ||
		hard_error "cannot patch $WORK/other_machine"
	RUN_NAME=other mprof_run 30 "$WORK/t-other" -- "$WORK/other_machine"
	expect_eq "other machine: exit status 126 (cannot execute)" 126 "$RUN_STATUS"
	expect_eq "other machine: stderr: the warning and why it cannot run, nothing else" \
		"mprof: warning: $WORK/other_machine is a program for another machine: its loader cannot load mprof's recorder, so no allocations will be recorded (no trace written)
mprof: $WORK/other_machine: cannot execute: Exec format error" "$(cat "$RUN_ERR")"
	expect_eq "other machine: no trace" no "$([ -e "$WORK/t-other" ] && echo yes || echo no)"
else
	echo "not an x86-64 host: the other-machine case is not run"
fi

# 1. 32-bit
if ! $CC -m32 -O1 -o "$WORK/p32" "$PROGS_DIR/foreign_class.c" >"$WORK/build32.log" 2>&1; then
	cat "$WORK/build32.log"
	[ "$CHECKS" -gt 0 ] || skip "$CC -m32 cannot build a 32-bit program (gcc-multilib)"
	echo "$CC -m32 cannot build a 32-bit program (gcc-multilib): the 32-bit case is not run"
	finish
fi
warning="mprof: warning: $WORK/p32 is a 32-bit program: its loader cannot load mprof's recorder, so no allocations will be recorded (no trace written)"
run_cmd 30 native32 "$WORK/p32"
native_status=$RUN_STATUS
RUN_NAME=run32 mprof_run 30 "$WORK/t32" -- "$WORK/p32"
expect_eq "32-bit: the warning, once" 1 "$(grep -cxF "$warning" "$RUN_ERR")"
expect_eq "32-bit: no trace" no "$([ -e "$WORK/t32" ] && echo yes || echo no)"
if [ "$(cat "$WORK/native32.out")" = "foreign_class: 4-byte pointers" ]; then
	expect_eq "32-bit: exit status as without mprof" 7 "$RUN_STATUS"
	expect_file_eq "32-bit: stdout as without mprof" "$WORK/native32.out" "$RUN_OUT"
	expect_eq "32-bit: stderr as without mprof (no loader error)" "foreign_class: stderr" \
		"$(program_stderr "$RUN_ERR")"
else
	echo "the kernel cannot run a 32-bit program here (status $native_status): checking mprof's refusal"
	expect_eq "32-bit, not runnable: exit status 126 (cannot execute)" 126 "$RUN_STATUS"
	expect_eq "32-bit, not runnable: stderr: the warning and why it cannot run" \
		"$warning
mprof: $WORK/p32: cannot execute: Exec format error" "$(cat "$RUN_ERR")"
fi
finish
