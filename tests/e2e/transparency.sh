#!/bin/bash
# transparency.sh - `mprof run` changes nothing the program shows: stdin,
# stdout, stderr (mprof's own lines all start with "mprof: ") and the exit
# status (exit 3 -> 3, SIGKILL -> 137, abort -> 134); an LD_PRELOAD the user
# set is kept.
# Programs and facts: tests/progs/transparency.c, tests/progs/preload_hello.c.
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
if report_json "$WORK/r-preload.json" "$WORK/trace-preload"; then
	expect_site "$WORK/r-preload.json" keep_some 3 6144 3 6144
	expect_site "$WORK/r-preload.json" hello_ctor_leak 1 4321 1 4321
fi
finish
