#!/bin/bash
# tsc-forbidden.sh - a program that forbids reading the time-stamp counter
# (prctl PR_SET_TSC, PR_TSC_SIGSEGV), by which the recorder times events
# on x86, runs as natively: the recorder sees the ban (through prctl, through
# syscall(SYS_prctl), and inherited across execve), times the process's
# later events by the coarse clock, so that it never reads the counter
# again (on most hosts a SIGSEGV in the program's malloc), and says so.
# The lifetimes stay figures (up to the coarse clock's stalls).  (A KVM
# guest of the PVM kind here reads the counter even under the ban, so the
# run itself cannot fail there; on a host that traps it, the exec mode
# dies natively in the dynamic loader, which reads the counter at its
# start, and is then checked to die the same way under mprof.)
# Program and facts: tests/progs/tsc_forbidden.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
case $(uname -m) in
x86_64 | i?86) ;;
*) skip "no time-stamp counter on $(uname -m)" ;;
esac
make_work
build_c "$WORK/tsc_forbidden" "$PROGS_DIR/tsc_forbidden.c"
NOTE="mprof: the program forbade reading the time-stamp counter (prctl PR_SET_TSC): its later events are timed to a scheduler tick (the coarse clock)"

for mode in prctl syscall exec; do
	# natively first: where the counter is trapped, the dynamic loader of
	# the program executed under the ban reads it itself (glibc's start-up
	# timing) and dies of SIGSEGV before any library runs; under mprof the
	# same must happen, and nothing else can be checked
	run_cmd 60 "native-$mode" "$WORK/tsc_forbidden" "$mode"
	native_status=$RUN_STATUS native_out=$(cat "$RUN_OUT")
	RUN_NAME=$mode mprof_run 120 "$WORK/$mode.trace" -- "$WORK/tsc_forbidden" "$mode"
	if [ "$native_status" != 0 ]; then
		echo "# $mode: natively status $native_status on this host (the loader reads the counter)"
		expect_eq "$mode: exit status as native" "$native_status" "$RUN_STATUS"
		expect_eq "$mode: stdout as native" "$native_out" "$(cat "$RUN_OUT")"
		# /proc/self/exe is the program's file, not mprof's (whose own
		# sanitizer runtime a sanitizer build once gave as the reason)
		[ "$mode" = exec ] && expect_match "$mode: why the program it executed is not recorded" \
			"executed /proc/self/exe, which is not recorded: the recorder did not start in it" \
			"$(cat "$RUN_ERR")"
		continue
	fi
	expect_eq "$mode: exit status" 0 "$RUN_STATUS"
	expect_eq "$mode: stdout" "forbidden ok" "$(cat "$RUN_OUT")"
	trace=$WORK/$mode.trace
	note=$NOTE
	if [ "$mode" = exec ]; then
		# the image that set the ban and the one it executed
		trace=$(ls "$WORK/$mode.trace".[0-9]*)
		note="$NOTE (in 2 processes)"
	fi
	expect_eq "$mode: mprof's note, once" 1 "$(grep -cxF "$note" "$RUN_ERR")"
	report_json "$WORK/$mode.json" "$trace"
	expect_site "$WORK/$mode.json" live_10ms 10 5000 0 0
	# timed by the coarse clock, which a loaded virtual machine can hold
	# for 20 ms and more (stalled-tick.sh): some block may measure 0, not
	# all ten
	expect_range "$mode: longest lifetime (ns)" 10000000 400000000 \
		"$(q "$WORK/$mode.json" sum lifetime_ns_max live_10ms)"
done
# without a ban: no note
RUN_NAME=plain mprof_run 120 "$WORK/plain.trace" -- "$WORK/tsc_forbidden" none
expect_eq "plain: exit status" 0 "$RUN_STATUS"
expect_eq "plain: stdout" "allowed ok" "$(cat "$RUN_OUT")"
expect_eq "plain: no note" 0 "$(grep -cF "time-stamp counter" "$RUN_ERR")"
finish
