#!/bin/bash
# mlock-all.sh - a program that locks all its memory (mlockall(MCL_CURRENT
# | MCL_FUTURE), as real-time programs do at their start) runs under mprof
# as without it, and its later threads are recorded.  The kernel faulted in
# and locked every page of the recorder's process file, 4096 rings of
# 768 KiB nearly all never written: the call took 20 s instead of under a
# millisecond and left 3 GiB of shared memory resident.  Now the rings of
# free slots are inaccessible during the call (the kernel skips them) and a
# thread's ring is made accessible when it claims the slot.  Both the C
# library's mlockall and syscall(SYS_mlockall).  Skips where the kernel
# refuses the call natively (no CAP_IPC_LOCK and a small RLIMIT_MEMLOCK).
# Program: tests/progs/mlock_all.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/mlock_all" "$PROGS_DIR/mlock_all.c" -pthread

run_cmd 60 probe "$WORK/mlock_all" libc
[ "$RUN_STATUS" = 77 ] && skip "mlockall(MCL_CURRENT) is refused here without mprof (RLIMIT_MEMLOCK, no CAP_IPC_LOCK)"

facts="mlockall: done
resident below 64 MiB: yes
threads: 4000 blocks"
for how in libc syscall; do
	expect_as_native 120 "$how" 3 "$WORK/$how" "$WORK/mlock_all" "$how"
	expect_eq "$how: the facts under mprof" "$facts" "$(cat "$WORK/mprof-$how.out")"
	if report_json "$WORK/$how.json" "$WORK/$how"; then
		expect_eq "$how: blocks of the threads in thread_blocks" 4000 \
			"$(q "$WORK/$how.json" sum allocations thread_blocks)"
		expect_eq "$how: nothing left unrecorded" 0 \
			"$(q "$WORK/$how.json" summary quality.unrecorded_allocations)"
	fi
done
finish
