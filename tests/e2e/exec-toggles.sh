#!/bin/bash
# exec-toggles.sh - toggle signals sent to mprof as fast as a shell can
# while the program executes itself, directly and through /bin/sh, 20
# times (each image also runs a fork child that executes it): a toggle
# passed on never reaches an image before its recorder installed the
# handler (the default action would end it).  Each run's exit status and
# output are those of the unprofiled run.  An exec that fails (ENOENT)
# leaves toggles to the image: one sent after it starts recording.  A
# static program executed, which catches SIGUSR2 itself, is never sent
# one: mprof says it kept it.
# Program: tests/progs/exec_toggles.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/chain" "$PROGS_DIR/exec_toggles.c" -I"$abs_top_srcdir/include"

mkdir "$WORK/native"
"$WORK/chain" "$WORK/native" 20 >"$WORK/native.out"
expect_eq "unprofiled: exit status" 0 "$?"

for run in 1 2 3 4 5 6; do
	T=$WORK/run$run
	mkdir "$T"
	"$MPROF" run --paused -o "$T.trace" -- "$WORK/chain" "$T" 20 >"$T.out" 2>"$T.err" &
	mpid=$!
	if wait_for_file "$T/ready" "$mpid"; then
		while kill -USR2 "$mpid" 2>/dev/null; do sleep 0.002; done &
		spid=$!
	fi
	wait "$mpid"
	expect_eq "run $run: exit status" 0 "$?"
	expect_eq "run $run: stdout" "$(cat "$WORK/native.out")" "$(cat "$T.out")"
	expect_no_match "run $run: no image killed by a signal" 'killed by signal' "$(cat "$T.err")"
	wait "$spid" 2>/dev/null
done
T=$WORK/enoent
mkdir "$T"
"$MPROF" run --paused -o "$T.trace" -- "$WORK/chain" "$T" enoent >"$T.out" 2>"$T.err" &
mpid=$!
wait_for_file "$T/failed" "$mpid" && kill -USR2 "$mpid"
wait "$mpid"
expect_eq "enoent: exit status" 0 "$?"
expect_eq "enoent: stdout" "enoent running" "$(cat "$T.out")"
report_json "$T.json" "$T.trace" && expect_site "$T.json" recorded_window 10 3000 0 0
# a static program the recorder never starts in, with a handler of its own
if $CC -O1 -static -o "$WORK/catcher" "$PROGS_DIR/static_catcher.c" 2>/dev/null; then
	T=$WORK/static
	mkdir "$T"
	"$MPROF" run --paused -o "$T.trace" -- "$WORK/chain" "$T" static "$WORK/catcher" \
		>"$T.out" 2>"$T.err" &
	mpid=$!
	if wait_for_file "$T/static_ready" "$mpid"; then
		kill -USR2 "$mpid"
		# a window for a wrong kill; mprof's warning shows it took the toggle
		sleep 0.5
		: >"$T/stop"
	fi
	wait "$mpid"
	expect_eq "static: exit status" 0 "$?"
	expect_eq "static: stdout" "static caught 0" "$(cat "$T.out")"
	expect_match "static: mprof says it kept the toggle" \
		"^mprof: warning: the toggle signal sent to mprof was not passed on \(1 time\)" \
		"$(cat "$T.err")"
fi
finish
