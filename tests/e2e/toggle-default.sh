#!/bin/bash
# toggle-default.sh - a program that sets the toggle signal to SIG_DFL
# through sigaction with flags and a mask keeps mprof's handler (it stands
# for the default), reads back the action it set, as without mprof, and
# the signal still toggles recording each time it comes: mprof's handler
# takes neither the program's SA_RESETHAND nor its flags.  Program and
# facts: tests/progs/toggle_default.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/toggle_default" "$PROGS_DIR/toggle_default.c" -I"$abs_top_srcdir/include"

reads='at start: default, flags 0, SIGINT masked 0
after set: default, flags 0x90000000, SIGINT masked 1'
expect_eq "without mprof: stdout" "$reads" "$(timeout 30 "$WORK/toggle_default" 2>&1)"
RUN_NAME=paused mprof_run 60 "$WORK/paused.trace" --paused -- "$WORK/toggle_default"
expect_eq "exit status" 0 "$RUN_STATUS"
expect_eq "stdout" "$reads
raised twice: running yes, no" "$(cat "$RUN_OUT")"
expect_no_match "no word of the program taking the toggle signal" 'toggle signal' \
	"$(cat "$RUN_ERR")"
report_json "$WORK/paused.json" "$WORK/paused.trace" || finish
expect_site "$WORK/paused.json" after_toggle 1 64 0 0
finish
