#!/bin/bash
# sandbox-kill-default.sh - a program whose seccomp allow-list kills the
# process on any other system call (as OpenSSH's preauth sandbox does) runs
# under mprof as without it: same exit status, same output, and its
# allocations after the filter recorded.  The recorder made calls of its own
# that the program never makes: getpid and getrusage for the exit note,
# sigaltstack in _exit, gettid, getpid and getrlimit at a stack's first
# capture, process_vm_readv at a signal frame, gettid and rt_sigprocmask at
# a thread's first allocation: the program was killed by SIGSYS.  Under a
# filter these come from what was kept before it, or are gone without (the
# exit note's peak RSS is then the launcher's sampled one).
# Program and facts: tests/progs/sandbox_kill_default.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/sandbox_kill_default" "$PROGS_DIR/sandbox_kill_default.c" -pthread

run_cmd 30 native "$WORK/sandbox_kill_default" main
[ "$RUN_STATUS" = 0 ] || skip "seccomp filters are refused here: $(head -c 300 "$WORK/native.err")"

# check MODE STATUS ALLOCATIONS [UNWINDER]: native and mprof run alike (with
# MPROF_UNWIND=UNWINDER when given), and what was recorded
check() {
	local mode=$1 status=$2 allocs=$3 unwinder=${4:-}
	local name=$mode${unwinder:+-$unwinder}
	run_cmd 30 "native-$name" "$WORK/sandbox_kill_default" "$mode"
	expect_eq "$name: native exit status" "$status" "$RUN_STATUS"
	expect_eq "$name: native stdout" "$mode ok" "$(cat "$WORK/native-$name.out")"
	if [ -n "$unwinder" ]; then
		MPROF_UNWIND=$unwinder mprof_run 60 "$WORK/t-$name" -- "$WORK/sandbox_kill_default" "$mode"
	else
		mprof_run 60 "$WORK/t-$name" -- "$WORK/sandbox_kill_default" "$mode"
	fi
	expect_eq "$name: mprof run: exit status" "$status" "$RUN_STATUS"
	expect_eq "$name: mprof run: stdout" "$mode ok" "$(cat "$RUN_OUT")"
	expect_no_match "$name: mprof run: no SIGSYS" "signal 31|SIGSYS" "$(cat "$RUN_ERR")"
	report_json "$WORK/t-$name.json" "$WORK/t-$name" || return
	expect_eq "$name: report: exit status" "$status" \
		"$(q "$WORK/t-$name.json" summary program.exit_status)"
	expect_eq "$name: report: allocations" "$allocs" \
		"$(q "$WORK/t-$name.json" summary allocations)"
}

# 3 kept before the filter, 40 after it, stdout's buffer
check main 0 44
check exit 4 44
check _exit 3 44
# the 3 kept, freed after the filter, and stdout's buffer; none leaked but it
check free 0 4
expect_eq "free: report: leaked blocks (stdout's buffer)" 1 \
	"$(q "$WORK/t-free.json" summary leaked_blocks)"
# the 40 in the signal handler
check signal 0 44
# the thread first allocates under the filter (its id from the C library's
# thread descriptor, not gettid): its 40, the 3, pthread_create's own (the
# thread's TLS vector) and stdout's buffer
check thread 0 45
expect_eq "thread: report: nothing unrecorded" 0 \
	"$(q "$WORK/t-thread.json" summary quality.unrecorded_allocations)"
# the same, and the thread ends (its state retired) and is joined under it
check join 0 45
# the other unwinders: libunwind (the fallback of fp, the comparison of
# check) made mincore, rt_sigprocmask and futex calls under the filter; it
# is not used there, a stack the own unwinder cannot walk is cut
for unwinder in libunwind check fp; do
	check thread 0 45 "$unwinder"
done
finish
