#!/bin/bash
# proc-self-reads.sh - what a recorded process opens in /proc/self, its fixed
# cost at every start and end.  Its command line is read once at the start
# when the process file's header holds all of it (the PROCESS record took a
# second read, a 64 KiB scratch mapping and 6 system calls), and again at
# the end to note a retitle; its name is taken on the main thread with
# PR_GET_NAME, which gives what /proc/self/comm shows, at the start and at
# the end (no path walk in /proc for it).  /proc/self/stat (where the
# argument strings lie, for an end under a seccomp filter, which reads its
# command line from memory) is opened only when a filter is known: never
# here (tests/e2e/sandboxed-exit.sh has a filter).  Each file is read with
# one read: /proc's files fill a read to their end, so the read that would
# return 0 is not made.  The vDSO (a module with a relative name and no
# file) is not looked up in /proc/self/map_files.  A command line the
# header cuts (1023 bytes quoted) is read again for the PROCESS record,
# which keeps all of it.  Counted with strace.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
command -v strace >/dev/null 2>&1 || skip "strace is not installed"
make_work

# reads_run NAME ARGS...: `mprof run -- /bin/echo ARGS` under strace -ff;
# CMDLINE, COMM, STAT: the opens of /proc/self/cmdline, comm and stat, GETNAME: the
# PR_GET_NAME calls, READ0: the reads that returned 0 (an end), MAPFILES:
# the readlinks of /proc/self/map_files
reads_run() {
	local name=$1
	shift
	# LeakSanitizer cannot work under ptrace (a sanitizer build's mprof
	# would exit 1)
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		run_cmd 120 "$name" strace -ff -qq -e trace=openat,open,prctl,execve,read,readlink \
		-o "$WORK/$name.calls" "$MPROF" run -q -o "$WORK/$name.trace" -- /bin/echo "$@"
	# the program's own calls: a sanitizer build's mprof and analyzer open
	# /proc/self/cmdline too (the sanitizer runtime)
	strace_calls_of "$WORK/$name.calls" /bin/echo "$WORK/$name.prog-calls"
	CMDLINE=$(grep -c '"/proc/self/cmdline"' "$WORK/$name.prog-calls")
	COMM=$(grep -c '"/proc/self/comm"' "$WORK/$name.prog-calls")
	STAT=$(grep -c '"/proc/self/stat"' "$WORK/$name.prog-calls")
	READ0=$(grep -c '^read(.*) *= 0$' "$WORK/$name.prog-calls")
	MAPFILES=$(grep -c '"/proc/self/map_files/' "$WORK/$name.prog-calls")
	GETNAME=$(grep -c 'PR_GET_NAME' "$WORK/$name.prog-calls")
}

# cmdline_of REPORT.json: the command line the report gives the program
cmdline_of() {
	json_eval "$1" 'd["summary"]["program"]["cmdline"]'
}

reads_run short short
expect_eq "short: exit status" 0 "$RUN_STATUS"
expect_eq "short: stdout" short "$(cat "$RUN_OUT")"
expect_eq "short: /proc/self/cmdline opened at the start and the end" 2 "$CMDLINE"
expect_eq "short: /proc/self/comm never opened" 0 "$COMM"
expect_eq "short: /proc/self/stat never opened (no seccomp filter)" 0 "$STAT"
expect_eq "short: no read returns 0 (each /proc file read once)" 0 "$READ0"
expect_eq "short: no /proc/self/map_files lookup (the vDSO has no file)" 0 "$MAPFILES"
expect_eq "short: the name at the start and the end by PR_GET_NAME" 2 "$GETNAME"
report_json "$WORK/short.json" "$WORK/short.trace"
expect_eq "short: the report's command line" "/bin/echo short" "$(cmdline_of "$WORK/short.json")"

long=$(printf 'y%.0s' $(seq 1500))
reads_run long "$long"
expect_eq "long: exit status" 0 "$RUN_STATUS"
expect_eq "long: stdout" "$long" "$(cat "$RUN_OUT")"
expect_eq "long: /proc/self/cmdline opened for the header, the PROCESS record and the end" \
	3 "$CMDLINE"
expect_eq "long: /proc/self/comm never opened" 0 "$COMM"
expect_eq "long: /proc/self/stat never opened (no seccomp filter)" 0 "$STAT"
expect_eq "long: no read returns 0 (each /proc file read once)" 0 "$READ0"
report_json "$WORK/long.json" "$WORK/long.trace"
expect_eq "long: the report's command line, all of it" "/bin/echo $long" \
	"$(cmdline_of "$WORK/long.json")"
finish
