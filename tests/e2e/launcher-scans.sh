#!/bin/bash
# launcher-scans.sh - the launcher reads the session directory only when a
# file was made in it since its last read (its inotify watch says so), not
# at every look for new process files: at each process's end and reap it
# looked again, 2-3 reads of the directory a process (two getdents64 calls
# each, ~10 us), though the directory had not changed.  sh runs /bin/true
# 20 times (a fork child each, which executes it): 21 traces, as before,
# and the launcher's getdents64 calls, counted with strace, 138-140 before
# and 44-52 after on the machine of bench/HISTORY.md session 61 (the bound
# leaves room for a loaded host's extra rounds after the program's end,
# when the directory is read every time).
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
command -v strace >/dev/null 2>&1 || skip "strace is not installed"
make_work

mkdir "$WORK/traces" "$WORK/calls"
# LeakSanitizer cannot work under ptrace (a sanitizer build's mprof would
# exit 1)
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	run_cmd 120 sh strace -ff -qq -e trace=execve,getdents64 -o "$WORK/calls/c" \
	"$MPROF" run -q -o "$WORK/traces/t" -- /bin/sh -c \
	'for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do /bin/true; done; echo ran'
expect_eq "exit status" 0 "$RUN_STATUS"
expect_eq "stdout" ran "$(cat "$RUN_OUT")"
expect_eq "sh and its 20 children have a trace each" 21 "$(ls "$WORK/traces" | grep -c '^t')"
strace_calls_of "$WORK/calls/c" "$MPROF" "$WORK/launcher-calls"
n=$(grep -c '^getdents64(' "$WORK/launcher-calls")
expect_eq "the launcher read the session directory" yes "$([ "$n" -gt 0 ] && echo yes || echo no)"
expect_eq "the launcher's getdents64 calls: fewer than 100" yes \
	"$([ "$n" -lt 100 ] && echo yes || echo "no ($n)")"
finish
