#!/bin/bash
# own-tls-child.sh - children that clone() starts on a thread pointer of
# their own (CLONE_SETTLS on a zeroed block, CLONE_VM | CLONE_VFORK), as
# Chromium's namespace sandbox does to chroot, call the recorder's wrappers
# of plain system calls and get what the C library gives them.  The
# wrappers of syscall(), the wait family, the exec family and a failing
# mmap read errno through __errno_location(), which has no memory there:
# the children died of SIGSEGV and Chromium's zygote, whose chroot child
# died, aborted the browser.  They now pass such a call on untouched.
# On a block that carries the C library's header, which the recorder
# takes for one of its own, the exec and spawn wrappers ran their
# checks (exec_reach's getxattr of security.capability) and left errno
# 61 (ENODATA) in the block the parent shares after an execve or
# posix_spawn that succeeded; errno is now the C library's.
# Program and facts: tests/progs/own_tls_child.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
# bound at the start: a lazy binding in a child writes at the thread pointer
build_c "$WORK/own_tls_child" "$PROGS_DIR/own_tls_child.c" -Wl,-z,now

EXPECTED="syscall: exit 7, returned 0
syscall-fails: exit 7, returned -1, errno 2
prctl: exit 7, returned 1
prctl-fails: exit 7, returned -1, errno 22
sigaction: exit 7, returned 0
sigaction-fails: exit 7, returned -1, errno 22
signal: exit 7, returned 0
setrlimit: exit 7, returned 0
setrlimit-fails: exit 7, returned -1, errno 22
prlimit: exit 7, returned 0
mmap: exit 7, returned 1
mmap-fails: exit 7, returned 0, errno 22
waitpid: exit 7, returned -1, errno 10
execve-fails: exit 7, returned -1, errno 2
execve: exit 5, returned -99
_Exit: exit 6, returned -99
_exit: exit 7, returned -99"

# on a thread pointer of 0 or of an unmapped page: the calls that fail, and
# prctl and sigaction (the C library's read its stack guard there), fault
EXPECTED_NO_BLOCK="syscall: exit 7, returned 0
syscall-fails: signal 11
prctl: signal 11
prctl-fails: signal 11
sigaction: signal 11
sigaction-fails: signal 11
signal: signal 11
setrlimit: exit 7, returned 0
setrlimit-fails: signal 11
prlimit: exit 7, returned 0
mmap: exit 7, returned 1
mmap-fails: signal 11
waitpid: signal 11
execve-fails: signal 11
execve: exit 5, returned -99
_Exit: exit 6, returned -99
_exit: exit 7, returned -99"

run_cmd 30 native "$WORK/own_tls_child"
[ "$RUN_STATUS" = 0 ] || skip "clone with a TLS of its own is refused here: $(head -c 300 "$RUN_ERR")"
expect_eq "native: stdout" "$EXPECTED" "$(cat "$RUN_OUT")"

mprof_run 60 "$WORK/t" -- "$WORK/own_tls_child"
expect_eq "mprof run: exit status" 0 "$RUN_STATUS"
expect_eq "mprof run: every child ends as without mprof, errno set where the C library sets it" \
	"$EXPECTED" "$(cat "$RUN_OUT")"
# CLONE_VM children are the program's threads of a sort: not named
expect_eq "mprof run: no warning" "" "$(grep -i warning "$RUN_ERR")"
# the program's trace and that of the shell the execve child started
expect_eq "traces: the program's and the executed shell's" 2 "$(ls "$WORK"/t* | wc -l)"
report_json "$WORK/sh.json" "$(ls "$WORK"/t.* | head -1)" &&
	expect_eq "the executed shell's exit status" 5 "$(q "$WORK/sh.json" summary program.exit_status)"

# errno in a block with the C library's header: as without mprof
run_cmd 30 native-header "$WORK/own_tls_child" header
EXPECTED_HEADER="execve-fails: exit 7, returned -1, errno 2
execve: exit 5, returned -99
posix_spawn: exit 7, returned 0
posix_spawn-fails: exit 7, returned 2, errno 2"
expect_eq "native, block with a header: stdout" "$EXPECTED_HEADER" "$(cat "$RUN_OUT")"
mprof_run 60 "$WORK/h" -- "$WORK/own_tls_child" header
expect_eq "mprof run, block with a header: exit status" 0 "$RUN_STATUS"
expect_eq "mprof run, block with a header: errno as the C library leaves it" \
	"$EXPECTED_HEADER" "$(cat "$RUN_OUT")"

for tp in zero unmapped zero-novfork; do
	run_cmd 30 "native-$tp" "$WORK/own_tls_child" "$tp"
	expect_eq "native, thread pointer $tp: stdout" "$EXPECTED_NO_BLOCK" "$(cat "$RUN_OUT")"
	mprof_run 60 "$WORK/tp-$tp" -- "$WORK/own_tls_child" "$tp"
	expect_eq "mprof run, thread pointer $tp: exit status" 0 "$RUN_STATUS"
	expect_eq "mprof run, thread pointer $tp: every child ends as without mprof" \
		"$EXPECTED_NO_BLOCK" "$(cat "$RUN_OUT")"
	expect_eq "mprof run, thread pointer $tp: no warning" "" "$(grep -i warning "$RUN_ERR")"
done
finish
