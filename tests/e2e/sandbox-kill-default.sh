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

# check MODE STATUS ALLOCATIONS: native and mprof run alike, and what was recorded
check() {
	local mode=$1 status=$2 allocs=$3
	run_cmd 30 "native-$mode" "$WORK/sandbox_kill_default" "$mode"
	expect_eq "$mode: native exit status" "$status" "$RUN_STATUS"
	expect_eq "$mode: native stdout" "$mode ok" "$(cat "$WORK/native-$mode.out")"
	mprof_run 60 "$WORK/t-$mode" -- "$WORK/sandbox_kill_default" "$mode"
	expect_eq "$mode: mprof run: exit status" "$status" "$RUN_STATUS"
	expect_eq "$mode: mprof run: stdout" "$mode ok" "$(cat "$RUN_OUT")"
	expect_no_match "$mode: mprof run: no SIGSYS" "signal 31|SIGSYS" "$(cat "$RUN_ERR")"
	report_json "$WORK/t-$mode.json" "$WORK/t-$mode" || return
	expect_eq "$mode: report: exit status" "$status" \
		"$(q "$WORK/t-$mode.json" summary program.exit_status)"
	expect_eq "$mode: report: allocations" "$allocs" \
		"$(q "$WORK/t-$mode.json" summary allocations)"
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
finish
