#!/bin/bash
# mlock-limit.sh - a program without CAP_IPC_LOCK that locks its memory
# under a small RLIMIT_MEMLOCK gets what it gets without mprof, and its
# later allocations are recorded.  The kernel checks mlockall(MCL_CURRENT)
# against all mapped address space, the recorder's 16 GiB reservation and
# 3 GiB process file among it: under a limit of 8 MiB a small program's
# call failed with ENOMEM under mprof.  Now the recorder makes the call for
# the program's own mappings (preload/mlock_watch.c), and its own later
# mappings (site tables, nested heap, libunwind at the first thread) stay
# unlocked under MCL_FUTURE: VmLck grows by the threads as without mprof.  Run as nobody, with the limit
# set by the program's setrlimit: 8 MiB (natively enough), 1 MiB (natively
# ENOMEM) and 0 (EPERM); the C library's mlockall, syscall(SYS_mlockall),
# MCL_ONFAULT and MCL_CURRENT alone.  Program: tests/progs/mlock_limit.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
[ "$(id -u)" = 0 ] && command -v setpriv >/dev/null ||
	skip "not root, or no setpriv: cannot run the program without CAP_IPC_LOCK"
chmod 755 "$WORK"
mkdir -m 777 "$WORK/out"
build_c "$WORK/mlock_limit" "$PROGS_DIR/mlock_limit.c" -pthread
chmod 755 "$WORK/mlock_limit"

# as_nobody NAME CMD...: CMD run as nobody (no capabilities) with a hard
# RLIMIT_MEMLOCK of 8 MiB, its stdout in $WORK/NAME.out.
as_nobody() {
	local name=$1
	shift
	run_cmd 60 "$name" bash -c 'ulimit -l 8192 && exec "$@"' - \
		setpriv --reuid=nobody --regid=nogroup --clear-groups \
		env MPROF_SYMBOL_CACHE="$WORK/out/cache" "$@"
}

# locked HOW LIMIT_KIB FACTS: the program natively and under mprof prints
# FACTS and exits 0; when its call succeeded, all 4000 blocks of its
# threads are in the trace and nothing is unrecorded.
locked() {
	local name="$1-$2" trace="$WORK/out/$1-$2"
	as_nobody "native-$name" "$WORK/mlock_limit" "$1" "$2"
	expect_eq "$name: native exit status" 0 "$RUN_STATUS"
	expect_eq "$name: native facts" "$3" "$(grep -v '^VmLck grew' "$RUN_OUT")"
	as_nobody "mprof-$name" "$MPROF" run -o "$trace" -- "$WORK/mlock_limit" "$1" "$2"
	expect_eq "$name: exit status under mprof" 0 "$RUN_STATUS"
	expect_eq "$name: facts under mprof" "$3" "$(grep -v '^VmLck grew' "$RUN_OUT")"
	# the recorder's mappings after the call are not locked
	expect_eq "$name: VmLck's growth as without mprof" \
		"$(grep '^VmLck grew' "$WORK/native-$name.out")" "$(grep '^VmLck grew' "$RUN_OUT")"
	[ "${3#mlockall: 0}" != "$3" ] || return 0
	if report_json "$WORK/$name.json" "$trace"; then
		expect_eq "$name: blocks of the threads in thread_blocks" 4000 \
			"$(q "$WORK/$name.json" sum allocations thread_blocks)"
		expect_eq "$name: nothing left unrecorded" 0 \
			"$(q "$WORK/$name.json" summary quality.unrecorded_allocations)"
	fi
}

done_facts() {
	printf '%s\n' "mlockall: 0" "threads: 4000 blocks" "mlock: 0" "mlock2: 0" \
		"block of twice the limit: $1" "munlockall: 0" \
		"VmLck above 0 before: yes, 0 after: yes"
}
for how in libc syscall onfault; do
	locked "$how" 8192 "$(done_facts refused)"
done
locked current 8192 "$(done_facts came)"
for how in libc current; do
	locked "$how" 1024 "mlockall: -1 ENOMEM"
	locked "$how" 0 "mlockall: -1 EPERM"
done
finish
