#!/bin/bash
# end-states.sh - what a report calls the blocks still live at its end: a
# program that returns has leaks (live at exit); one killed by SIGKILL has
# blocks live when the recording ended, says so in its header, and never
# calls them leaks; one whose memory is mostly not malloc's (96 MiB of
# anonymous pages) is not called "exact: every allocation recorded".
# Program and facts: tests/progs/end_states.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/end_states" "$PROGS_DIR/end_states.c"

RUN_NAME=exit mprof_run 60 "$WORK/exit.trace" -- "$WORK/end_states" exit
expect_eq "exit: status" 0 "$RUN_STATUS"
report_json "$WORK/exit.json" "$WORK/exit.trace"
expect_site "$WORK/exit.json" keep_blocks 7 7168 7 7168
expect_eq "exit: ended_early" null "$(q "$WORK/exit.json" summary ended_early)"
"$MPROF" report -n 1 "$WORK/exit.trace" >"$WORK/exit.txt" 2>&1
expect_match "exit: header" '^mprof report: .* \(exact: every allocation recorded\)$' "$(head -n 1 "$WORK/exit.txt")"
expect_match "exit: leaks" '^leaked: +7168 B \(7.0 KiB\) in 7 blocks \(live at exit\)$' \
	"$(grep '^leaked:' "$WORK/exit.txt")"

RUN_NAME=kill mprof_run 60 "$WORK/kill.trace" -- "$WORK/end_states" kill
expect_eq "kill: status (128 + SIGKILL)" 137 "$RUN_STATUS"
report_json "$WORK/kill.json" "$WORK/kill.trace"
expect_site "$WORK/kill.json" keep_blocks 7 7168 7 7168
expect_eq "kill: ended_early" "the program was killed by signal 9 (SIGKILL)" \
	"$(q "$WORK/kill.json" summary ended_early)"
"$MPROF" report -n 1 "$WORK/kill.trace" >"$WORK/kill.txt" 2>&1
expect_match "kill: header" '^mprof report: .* \(exact until the recording ended early\)$' \
	"$(head -n 1 "$WORK/kill.txt")"
expect_match "kill: ended early" '^ended early: +the program was killed by signal 9 \(SIGKILL\);' \
	"$(grep '^ended early:' "$WORK/kill.txt")"
expect_match "kill: live at end" \
	'^live at end: +7168 B \(7.0 KiB\) in 7 blocks \(live when the recording ended\)$' \
	"$(grep '^live at end:' "$WORK/kill.txt")"
expect_eq "kill: lines that call blocks leaked or live at exit" 0 \
	"$(grep -v "^ended early:" "$WORK/kill.txt" | grep -c -i "leak\|live at exit")"

RUN_NAME=rss mprof_run 60 "$WORK/rss.trace" -- "$WORK/end_states" rss
expect_eq "rss: status" 0 "$RUN_STATUS"
report_json "$WORK/rss.json" "$WORK/rss.trace"
expect_eq "rss: rss_mostly_unseen" true "$(q "$WORK/rss.json" summary rss_mostly_unseen)"
"$MPROF" report -n 0 "$WORK/rss.trace" >"$WORK/rss.txt" 2>&1
expect_match "rss: header" '^mprof report: .* \(exact for malloc blocks; see the note\)$' \
	"$(head -n 1 "$WORK/rss.txt")"
expect_match "rss: note" '^note: +peak RSS .* is over 4 times the heap peak \(7168 B \(7.0 KiB\)\)' \
	"$(grep '^note:' "$WORK/rss.txt")"
finish
