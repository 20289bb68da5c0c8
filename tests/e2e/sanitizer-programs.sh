#!/bin/bash
# sanitizer-programs.sh - a program GCC built with a sanitizer that serves
# malloc itself (its runtime a DT_NEEDED library: libasan, libtsan, liblsan)
# runs under mprof as without it, and mprof says why it records nothing.
# With the recorder preloaded ahead of the runtime, AddressSanitizer ended
# the program with "ASan runtime does not come first in initial library
# list" (status 1), ThreadSanitizer's took a SIGSEGV (139), and
# LeakSanitizer's malloc was replaced by the recorder's.  Each kind is
# skipped where the compiler cannot build or the host cannot run it.
# Program: tests/progs/sanitized_leak.c (exit status 5).
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work

tried=0
for kind in address:AddressSanitizer:libasan thread:ThreadSanitizer:libtsan \
	leak:LeakSanitizer:liblsan; do
	flag=${kind%%:*}
	rest=${kind#*:}
	name=${rest%%:*}
	lib=${rest#*:}
	prog="$WORK/prog_$flag"
	build_sanitized "$flag" "$prog" "native-$flag" || continue
	tried=$((tried + 1))
	RUN_NAME="mprof-$flag" mprof_run 60 "$WORK/t-$flag" -- "$prog"
	expect_eq "$name: exit status as native" 5 "$RUN_STATUS"
	expect_file_eq "$name: stdout as native" "$WORK/native-$flag.out" "$WORK/mprof-$flag.out"
	program_stderr "$WORK/mprof-$flag.err" >"$WORK/mprof-$flag.progerr"
	expect_file_eq "$name: program's stderr as native" "$WORK/native-$flag.err" \
		"$WORK/mprof-$flag.progerr"
	expect_match "$name: mprof says why it records nothing" \
		"^mprof: warning: .*prog_$flag is built with $name \\(it loads $lib\\.so\\.[0-9]+\\), .*no allocations will be recorded \\(no trace written\\)$" \
		"$(grep "built with" "$WORK/mprof-$flag.err")"
	expect_eq "$name: no trace written" no "$([ -e "$WORK/t-$flag" ] && echo yes || echo no)"
done
[ "$tried" -gt 0 ] || skip "no sanitizer program can be built and run here"
# a program without a sanitizer is recorded as ever
build_c "$WORK/plain" "$PROGS_DIR/sanitized_leak.c"
RUN_NAME=mprof-plain mprof_run 60 "$WORK/t-plain" -- "$WORK/plain"
expect_eq "plain: exit status" 5 "$RUN_STATUS"
if report_json "$WORK/r.json" "$WORK/t-plain"; then
	expect_eq "plain: main's allocations, bytes" "4 364" "$(json_eval "$WORK/r.json" \
		"'%d %d' % tuple(sum(s[k] for s in d['sites'] if s['frames'][0]['function'] == 'main')
		for k in ('allocations', 'allocated_bytes'))")"
fi
finish
