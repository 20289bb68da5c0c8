#!/bin/bash
# exec-bad-pointers.sh - the C library's exec and spawn calls given a path,
# argument vector, environment or environment entry the kernel cannot read.
# Natively each fails with EFAULT (glibc 2.36's posix_spawnp returns 0 for
# a child that dies of SIGSEGV in its own path search) and the program goes
# on; before, the recorder's wrappers (preload/exec_watch.c) read the path
# and the environment themselves first and the program died of SIGSEGV
# under `mprof run`, its buffered output lost.  Now they copy what they
# read through process_vm_readv (preload/exec_args.c) and note nothing for
# such a call.  The forms the C library itself dies of natively (execvp's and
# execlp's file, posix_spawn's argv, the toggle signal's sigaction with an
# action that cannot be read) die the same way profiled.  A good exec is
# still recorded (exec-names.sh, fork-exec-children.sh, env-drop.sh).
# Program and facts: tests/progs/exec_bad_pointers.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/exec_bad_pointers" "$PROGS_DIR/exec_bad_pointers.c"
P="$WORK/exec_bad_pointers"

run_cmd 60 native "$P"
expect_eq "natively: status 0" 0 "$RUN_STATUS"
NATIVE=$(cat "$RUN_OUT")
expect_eq "natively: every exec form EFAULT" 27 "$(grep -c -E '^exec.*: EFAULT$|^fexecve.*: EFAULT$' "$RUN_OUT")"
expect_eq "natively: posix_spawnp's unreadable file, a child dead of SIGSEGV" 2 \
	"$(grep -c '^posix_spawnp file.*: rc=0, child signal 11$' "$RUN_OUT")"

RUN_NAME=profiled mprof_run 60 "$WORK/t" -- "$P"
expect_eq "profiled: status 0, as natively" 0 "$RUN_STATUS"
expect_eq "profiled: the output is the native one" "$NATIVE" "$(cat "$RUN_OUT")"
expect_eq "profiled: no warning" 0 "$(grep -c 'warning' "$RUN_ERR")"
run_cmd 60 report "$MPROF" report -n 0 "$WORK/t"
expect_eq "report: an exit, nothing executed" \
	"program:          $P (pid P), exited with status 0" \
	"$(grep -E '^(program|executed):' "$RUN_OUT" | sed 's/(pid [0-9]*)/(pid P)/')"
report_json "$WORK/t.json" "$WORK/t"
expect_eq "report: main's blocks of 1000 B: 7, all leaked" "7 7 7000" \
	"$(q "$WORK/t.json" sum-size allocations 1000 main) $(q "$WORK/t.json" sum-size leaked_blocks 1000 main) $(q "$WORK/t.json" sum-size leaked_bytes 1000 main)"
expect_eq "report: main's blocks of 500 B: 3, all freed" "3 3 0" \
	"$(q "$WORK/t.json" sum-size allocations 500 main) $(q "$WORK/t.json" sum-size freed 500 main) $(q "$WORK/t.json" sum-size leaked_blocks 500 main)"

# The forms the C library dies of natively die the same way profiled.
for form in execvp-file execlp-file posix_spawn-argv sigaction-act; do
	BAD_SIG=$(kill -l USR2) run_cmd 60 "native-$form" "$P" crash "$form"
	native_status=$RUN_STATUS native_out=$(cat "$RUN_OUT")
	BAD_SIG=$(kill -l USR2) RUN_NAME="profiled-$form" \
		mprof_run 60 "$WORK/c-$form" --toggle-signal USR2 -- "$P" crash "$form"
	expect_eq "$form: natively SIGSEGV" 139 "$native_status"
	expect_eq "$form: profiled, the native status" "$native_status" "$RUN_STATUS"
	expect_eq "$form: profiled, the native output" "$native_out" "$(cat "$RUN_OUT")"
done
finish
