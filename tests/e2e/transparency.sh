#!/bin/bash
# transparency.sh - `mprof run` changes nothing the program shows: stdin,
# stdout, stderr (mprof's own lines all start with "mprof: ") and the exit
# status (exit 3 -> 3, SIGKILL -> 137, abort -> 134, and killed by a signal
# to a parent that asks); an LD_PRELOAD the user set is kept for the
# program (not for mprof's helper); the program finds no descriptor it did
# not open, and its own files are never read or written by the profiler.
# Programs and facts: tests/progs/transparency.c, tests/progs/preload_hello.c,
# tests/progs/own_fds.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/transparency" "$PROGS_DIR/transparency.c"
build_c "$WORK/libpreload_hello.so" "$PROGS_DIR/preload_hello.c" -shared -fPIC
printf 'first line of stdin\nsecond\n' >"$WORK/stdin.txt"
RUN_STDIN="$WORK/stdin.txt"

for mode in ok exit3 kill abort; do
	case $mode in
	ok) want=0 ;;
	exit3) want=3 ;;
	kill) want=137 ;;
	abort) want=134 ;;
	esac
	# native reference run, through bash so signals give 128+N
	run_cmd 30 "native-$mode" "$WORK/transparency" "$mode"
	expect_eq "native $mode: exit status" "$want" "$RUN_STATUS"
	RUN_NAME="mprof-$mode" mprof_run 60 "$WORK/trace-$mode" -- "$WORK/transparency" "$mode"
	expect_eq "mprof run, $mode: exit status" "$want" "$RUN_STATUS"
	expect_file_eq "mprof run, $mode: stdout unchanged" "$WORK/native-$mode.out" "$WORK/mprof-$mode.out"
	expect_eq "mprof run, $mode: errno left as the program set it" "errno kept: yes" \
		"$(head -n 1 "$WORK/mprof-$mode.out")"
	program_stderr "$WORK/mprof-$mode.err" >"$WORK/mprof-$mode.progerr"
	expect_file_eq "mprof run, $mode: stderr unchanged (without mprof: lines)" \
		"$WORK/native-$mode.err" "$WORK/mprof-$mode.progerr"
	report_json "$WORK/r-$mode.json" "$WORK/trace-$mode" || continue
	expect_site "$WORK/r-$mode.json" keep_some 3 6144 3 6144
	expect_site "$WORK/r-$mode.json" churn 100 6400 0 0
	expect_site "$WORK/r-$mode.json" errno_kept 2 64 0 0
done

# An existing LD_PRELOAD is kept: the user's library still runs (and is
# profiled like any other code).
LD_PRELOAD="$WORK/libpreload_hello.so" RUN_NAME=preload \
	mprof_run 60 "$WORK/trace-preload" -- "$WORK/transparency" ok
expect_eq "with LD_PRELOAD: exit status" 0 "$RUN_STATUS"
expect_eq "with LD_PRELOAD: the user's library ran once in the program" 1 \
	"$(grep -cx 'hello from preload_hello in transparency' "$RUN_ERR")"
expect_file_eq "with LD_PRELOAD: stdout unchanged" "$WORK/native-ok.out" "$WORK/preload.out"
# mprof's helper that embeds the symbols is started without it: the user's
# library wrote its line on the program's stderr from there too
expect_eq "with LD_PRELOAD: the user's library ran in no helper of mprof's" "" \
	"$(grep '^hello from preload_hello in mprof-' "$RUN_ERR")"
if report_json "$WORK/r-preload.json" "$WORK/trace-preload"; then
	expect_site "$WORK/r-preload.json" keep_some 3 6144 3 6144
	expect_site "$WORK/r-preload.json" hello_ctor_leak 1 4321 1 4321
fi

# The program's descriptors are its own: none it did not open at the start,
# at any number (libunwind's pipe took 3 and 4, or 0 and 1 when they were
# closed, and then two at the top of the descriptor limit; it has none
# now), and after it closes every one from 3 up and opens its files there,
# unwinding through a frame without unwind information (libunwind's careful
# path, which read a byte from that pipe and wrote one into it) leaves them
# alone.  tests/e2e/claimed-fds.sh: a program that takes every number.
build_c "$WORK/own_fds" "$PROGS_DIR/own_fds.c"
# the descriptors a list names, in order (those the test's own caller left
# open are inherited with or without mprof)
own_list() { tr ' ' '\n' | awk 'NF' | tr '\n' ' ' | sed 's/ $//'; }
native_fds=$("$WORK/own_fds" - 2>&1 >/dev/null | sed 's/^fds at start: //' | own_list)
printf 'the input line\nmore\n' >"$WORK/fds-in"
for mode in exact sampled; do
	opts=""
	[ $mode = sampled ] && opts="--sample-rate 4K"
	rm -f "$WORK/fds-out"
	# shellcheck disable=SC2086
	RUN_NAME="fds-$mode" mprof_run 60 "$WORK/trace-fds-$mode" $opts -- \
		"$WORK/own_fds" "$WORK/fds-in" "$WORK/fds-out"
	expect_eq "own fds ($mode): exit status" 0 "$RUN_STATUS"
	expect_eq "own fds ($mode): no descriptor it did not open" \
		"$native_fds" "$(sed -n 's/^fds at start: //p' "$WORK/fds-$mode.out" | own_list)"
	expect_eq "own fds ($mode): what it does" "files on 3 4|read: the input line" \
		"$(sed 1d "$WORK/fds-$mode.out" | tr '\n' '|' | sed 's/|$//')"
	expect_eq "own fds ($mode): its output file holds its own line only" "own_fds wrote this" \
		"$(cat -v "$WORK/fds-out")"
done
if report_json "$WORK/r-fds.json" "$WORK/trace-fds-exact"; then
	expect_site "$WORK/r-fds.json" no_cfi_alloc 1000 599500 0 0
fi
# under a descriptor limit of 24 (the pipe went 2 below it there)
rm -f "$WORK/fds-out"
(ulimit -n 24 && "$MPROF" run -q -o "$WORK/trace-fds-24" -- "$WORK/own_fds" "$WORK/fds-in" \
	"$WORK/fds-out" >"$WORK/fds-24.out" 2>"$WORK/fds-24.err")
expect_eq "own fds (limit 24): what it does" "files on 3 4|read: the input line" \
	"$(sed 1d "$WORK/fds-24.out" | tr '\n' '|' | sed 's/|$//')"
expect_eq "own fds (limit 24): its output file holds its own line only" "own_fds wrote this" \
	"$(cat -v "$WORK/fds-out")"
# started with stdin and stdout closed: they stay closed
(exec <&- >&-; "$WORK/own_fds" - 2>"$WORK/native-closed.err")
(exec <&- >&-; "$MPROF" run -q -o "$WORK/trace-closed" -- "$WORK/own_fds" - \
	2>"$WORK/closed.err")
expect_eq "stdin and stdout closed (native): 0 and 1 not open" "" \
	"$(sed 's/^fds at start: //' "$WORK/native-closed.err" | own_list | tr ' ' '\n' | grep -x '[01]')"
expect_eq "stdin and stdout closed: the program finds them closed" \
	"$(sed 's/^fds at start: //' "$WORK/native-closed.err" | own_list)" \
	"$(sed 's/^fds at start: //' "$WORK/closed.err" | own_list)"

# A parent sees the wait status it sees without mprof: a program killed by
# a signal has mprof end by that signal once the trace is written
# (WIFSIGNALED; before, mprof exited with 128 + N, which a shell shows alike
# but a parent that asks how its child ended, or a shell script told to stop
# on Ctrl-C, does not)
wait_status() {
	"$PYTHON" -c 'import subprocess, sys
r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
print("killed by signal %d" % -r if r < 0 else "exited with %d" % r)' "$@"
}
for sig in SEGV TERM INT KILL ABRT; do
	native=$(wait_status sh -c "kill -$sig \$\$")
	expect_eq "killed by SIG$sig: the wait status a parent sees, as without mprof" "$native" \
		"$(wait_status "$MPROF" run -q -o "$WORK/ws-$sig" -- sh -c "kill -$sig \$\$")"
	# a SIGINT the test inherited ignored (a background job of a script)
	# ends nothing, with or without mprof
	want="killed by signal"
	[[ $native == killed* ]] || want="exited with status"
	expect_eq "killed by SIG$sig: the trace was finished first" "$want" \
		"$("$MPROF" report "$WORK/ws-$sig" 2>&1 |
			sed -n 's/^program: .*), \(killed by signal\|exited with status\).*/\1/p')"
done
# the message names the program the process ran when it died, not the
# shell that executed it (it said "sh was killed")
"$MPROF" run -o "$WORK/ws-exec" -- sh -c 'exec bash -c "kill -SEGV \$\$"' 2>"$WORK/ws-exec.err"
expect_eq "killed after an exec: the program named" "mprof: bash was killed by signal 11 (SIGSEGV)" \
	"$(grep 'killed by' "$WORK/ws-exec.err")"
expect_eq "exit 3: the wait status" "exited with 3" \
	"$(wait_status "$MPROF" run -q -o "$WORK/ws-exit3" -- "$WORK/transparency" exit3)"

# glibc's malloc debugging library preloaded by the user cannot check what
# mprof's recorder takes first: mprof says so (before, the program ran on
# without a word where it would abort)
# (mprof built with AddressSanitizer cannot start with another malloc
# preloaded in front of it: the check needs a plain build)
if ldd "$MPROF" 2>/dev/null | grep -q libasan; then
	echo "mprof is built with AddressSanitizer: the libc_malloc_debug check needs a plain build"
else
	LD_PRELOAD=libc_malloc_debug.so.0 run_cmd 30 mdebug "$MPROF" run -q -o "$WORK/md.trace" -- true
	expect_eq "libc_malloc_debug preloaded: exit status" 0 "$RUN_STATUS"
	expect_eq "libc_malloc_debug preloaded: the warning" \
		"mprof: warning: libc_malloc_debug is in LD_PRELOAD: under mprof its checks (glibc.malloc.check, MALLOC_CHECK_, mcheck) and mtrace log see no allocation, since mprof's recorder takes malloc first and calls the C library's own" \
		"$(grep libc_malloc_debug "$RUN_ERR")"
fi
finish
