#!/bin/bash
# claimed-fds.sh - a program that owns every descriptor number keeps its
# descriptors and its file as they are without mprof: after closefrom(3), a
# file at 3 and dup2 of it over every other number up to the limit of 1024,
# allocating through frames without unwind information (where libunwind
# checks memory before reading it, which it did with a pipe of its own at
# 1016 and 1017, by then the program's file) neither moves the file's
# position nor writes into it nor swaps any of its descriptors; with only
# the file open, no descriptor appears; and the report counts every
# allocation, through the program's frames.  In the default unwinding
# mode (libunwind for frames without CFI), with MPROF_UNWIND=libunwind
# (libunwind for every stack), and under a seccomp filter that refuses
# process_vm_readv(2), the recorder's way of checking memory for libunwind.
# Program and facts: tests/progs/claimed_fds.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/claimed_fds" "$PROGS_DIR/claimed_fds.c"

all_out="open: 0 1 2 and 3 to 1023|not the file: none|position: 0|read back: hello"
low_out="open: 0 1 2 3|not the file: none|position: 0|read back: hello"

# run_case NAME MODE UNWIND [refuse-vm-read]: the program natively and
# under mprof with MPROF_UNWIND=UNWIND ("" for the default), limit 1024;
# compares stdout and the file with the native run's and the facts.
run_case() {
	local name=$1 mode=$2 unwind=$3 extra=${4:-} want=$all_out
	[ "$mode" = low ] && want=$low_out
	(ulimit -n 1024 && run_cmd 60 "native-$name" "$WORK/claimed_fds" "$mode" \
		"$WORK/native-$name.file" $extra && echo "$RUN_STATUS" >"$WORK/native-$name.status")
	[ "$(cat "$WORK/native-$name.status")" = 77 ] && return 1
	expect_eq "$name: native stdout" "$want" \
		"$(tr '\n' '|' <"$WORK/native-$name.out" | sed 's/|$//')"
	(ulimit -n 1024 && MPROF_UNWIND=$unwind RUN_NAME="mprof-$name" \
		mprof_run 60 "$WORK/trace-$name" -- "$WORK/claimed_fds" "$mode" \
		"$WORK/mprof-$name.file" $extra && echo "$RUN_STATUS" >"$WORK/mprof-$name.status")
	expect_eq "$name: exit status" 0 "$(cat "$WORK/mprof-$name.status")"
	expect_file_eq "$name: stdout as natively (descriptors, position, content)" \
		"$WORK/native-$name.out" "$WORK/mprof-$name.out"
	expect_eq "$name: the file holds what the program wrote, nothing else" "hello" \
		"$(cat -v "$WORK/mprof-$name.file")"
	expect_file_eq "$name: the file as natively" \
		"$WORK/native-$name.file" "$WORK/mprof-$name.file"
	report_json "$WORK/r-$name.json" "$WORK/trace-$name" || return 0
	expect_site "$WORK/r-$name.json" no_cfi_alloc 1000 599500 0 0
	expect_eq "$name: no_cfi_alloc's caller is main" main \
		"$(q "$WORK/r-$name.json" caller no_cfi_alloc)"
	expect_site "$WORK/r-$name.json" no_cfi_bad_frame 10 640 0 0
	expect_eq "$name: no allocation unrecorded" 0 \
		"$(q "$WORK/r-$name.json" summary quality.unrecorded_allocations)"
	return 0
}

run_case all-default all ""
run_case all-libunwind all libunwind
run_case low-default low ""
run_case low-libunwind low libunwind
run_case low-refused low "" refuse-vm-read ||
	echo "note: no seccomp filter on this machine: process_vm_readv refused not tried"
run_case low-refused-libunwind low libunwind refuse-vm-read || true
finish
