#!/bin/bash
# unrecorded-comm.sh - a program renames its main thread by writing
# /proc/self/task/TID/comm, and starts a thread, with and without an
# allow-list seccomp filter that kills the process on prctl, mincore and
# msync.  Unfiltered, the report's process name follows the rename (the
# exit note asks PR_GET_NAME).  Filtered, the recorder makes none of those
# calls: a thread started after the filter learnt its stack range with
# msync at its first allocation, and the program was killed by SIGSYS; it
# now leaves the range unknown.  The name is then the one the program had
# when it installed the filter (no call may ask for it at exit, a known
# limit: preload/exit_note.c); END name_how was "exit" all the same, and
# now says "filter", and the text report says whose name it is.
# Program and facts: tests/progs/unrecorded_comm.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/unrecorded_comm" "$PROGS_DIR/unrecorded_comm.c" -pthread

run_cmd 30 native "$WORK/unrecorded_comm" filtered
[ "$RUN_STATUS" = 0 ] || skip "seccomp filters are refused here: $(head -c 300 "$RUN_ERR")"

for mode in plain filtered; do
	RUN_NAME=run-$mode mprof_run 60 "$WORK/$mode" -- "$WORK/unrecorded_comm" $mode
	expect_eq "$mode: exit status" 0 "$RUN_STATUS"
	expect_eq "$mode: stdout" "comm renamed" "$(cat "$RUN_OUT")"
	expect_no_match "$mode: no SIGSYS" "signal 31|SIGSYS" "$(cat "$RUN_ERR")"
	report_json "$WORK/$mode.json" "$WORK/$mode" || continue
	R="$WORK/$mode.json"
	expect_eq "$mode: allocations (thread_alloc, stdout's buffer, the thread's TLS)" 3 \
		"$(q "$R" summary allocations)"
	expect_site "$R" thread_alloc 1 64 0 0
	expect_eq "$mode: leaked blocks (stdout's buffer, the thread's TLS)" 2 \
		"$(q "$R" summary leaked_blocks)"
done
expect_eq "plain: END name: the rename, at exit" "renamed|exit" \
	"$(json_eval "$WORK/plain.json" '"%s|%s" % (d["summary"]["end"].get("comm"), d["summary"]["end"].get("name_how"))')"
expect_eq "filtered: END name: the one given before the filter (known limit), said so" \
	"beforefilter|filter" \
	"$(json_eval "$WORK/filtered.json" '"%s|%s" % (d["summary"]["end"].get("comm"), d["summary"]["end"].get("name_how"))')"
expect_eq "filtered: json program.name_how" "filter" \
	"$(json_eval "$WORK/filtered.json" 'd["summary"]["program"]["name_how"]')"
run_cmd 60 text-filtered "$MPROF" report -n 0 "$WORK/filtered"
expect_eq "filtered: the text report says whose name it is" \
	"renamed itself:   its process name in brackets is the one it had when it installed a seccomp filter (none can be asked for at exit under one)" \
	"$(grep '^renamed itself:' "$RUN_OUT")"
finish
