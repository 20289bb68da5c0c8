#!/bin/bash
# real4-second-recorder.sh - a second recorder in the same process (a guest
# program under qemu-user loads the preloaded recorder into the emulated
# process; a program can dlmopen() it into a namespace of its own) makes a
# second image of the same pid that did not come from an exec.  mprof took
# every later image of a pid for an exec of the earlier one: the trace that
# held the program's allocations said "exec" instead of its exit status
# (qemu-x86_64 ./prog: "qemu-x86_64 ./prog (pid N), exec"), its run time
# cut at the second one's start.  Now an image that noted no exec ends
# there only if it neither writes on nor calls exit().  The program runs as
# mprof's program and as a shell's child.
# Program and facts: tests/progs/second_recorder.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/second_recorder" "$PROGS_DIR/second_recorder.c" -ldl

# check_traces LABEL PID: every trace of PID ended with status 5, and one
# of them holds make_blocks' 40 blocks.
check_traces() {
	local t n=0 held=
	for t in "$WORK"/"$1".t*; do
		case $t in *.json | *.err) continue ;; esac
		report_json "$t.json" "$t" || continue
		[ "$(q "$t.json" get trace.pid)" = "$2" ] || continue
		n=$((n + 1))
		expect_eq "$1: $(basename "$t"): process state" ended "$(q "$t.json" get summary.end.process_state)"
		expect_eq "$1: $(basename "$t"): exit status" 5 "$(q "$t.json" get summary.end.exit_status)"
		[ "$(q "$t.json" sum allocations make_blocks)" = 40 ] && held=$t.json
	done
	expect_eq "$1: traces of pid $2" 2 "$n"
	expect_ne "$1: a trace holds make_blocks" "" "$held"
	[ -n "$held" ] && expect_site "$held" make_blocks 40 1920 40 1920
}

run_cmd 30 native "$WORK/second_recorder"
expect_eq "native: exit status" 5 "$RUN_STATUS"
expect_eq "native: stdout" alone "$(cat "$WORK/native.out")"

RUN_NAME=root mprof_run 60 "$WORK/root.t" -- "$WORK/second_recorder"
expect_eq "root: exit status" 5 "$RUN_STATUS"
expect_eq "root: stdout" loaded "$(cat "$RUN_OUT")"
expect_eq "root: program's stderr" "" "$(program_stderr "$RUN_ERR")"
report_json "$WORK/root.json" "$WORK/root.t" &&
	check_traces root "$(q "$WORK/root.json" get trace.pid)"

RUN_NAME=child mprof_run 60 "$WORK/child.t" -- /bin/sh -c '"$1"; echo "sh: $?"' sh \
	"$WORK/second_recorder"
expect_eq "child: exit status" 0 "$RUN_STATUS"
expect_eq "child: stdout" "loaded
sh: 5" "$(cat "$RUN_OUT")"
child_pid=
for t in "$WORK"/child.t.*; do
	case $t in *.json | *.err) continue ;; esac
	"$MPROF" report --format json "$t" >"$WORK/exe.json" 2>/dev/null || continue
	[ "$(q "$WORK/exe.json" get trace.exe)" = "$WORK/second_recorder" ] &&
		child_pid=$(q "$WORK/exe.json" get trace.pid)
done
expect_ne "child: a trace of the program" "" "$child_pid"
[ -n "$child_pid" ] && check_traces child "$child_pid"
finish
