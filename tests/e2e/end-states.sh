#!/bin/bash
# end-states.sh - what a report calls the blocks still live at its end: a
# program that returns has leaks (live at exit); one killed by SIGKILL has
# blocks live when the recording ended, says so in its header, and never
# calls them leaks; one whose memory is mostly not malloc's (96 MiB of
# anonymous pages) is not called "exact: every allocation recorded"; nor is
# a trace whose disk filled up.
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

# A disk that fills while the trace is written (a 32 KiB tmpfs): the trace
# ends early with no gap in its events.  The launcher cuts the chunk it
# could not write and writes END with the error when that still fits (else
# the trace has no END); either way the report must not call it exact nor
# its live blocks leaks (it did: "exact: every allocation recorded" with
# 1.7 of 4 million allocations).  Traces that cannot be created at all are
# named once, then counted.
build_c "$WORK/tree_worker" "$PROGS_DIR/tree_worker.c"
mkdir -p "$WORK/full"
if mount -t tmpfs -o size=32k tmpfs "$WORK/full" 2>/dev/null; then
	RUN_NAME=full mprof_run 60 "$WORK/full/t" -- "$WORK/tree_worker" 4000000
	expect_eq "disk full: the program's status" 0 "$RUN_STATUS"
	expect_match "disk full: the launcher says so" \
		"writing trace .*/full/t failed: No space left on device; the trace ends early" \
		"$(cat "$RUN_ERR")"
	report_json "$WORK/full.json" "$WORK/full/t"
	expect_range "disk full: some allocations, not all" 1 3999999 \
		"$(q "$WORK/full.json" summary allocations)"
	"$MPROF" report -n 0 "$WORK/full/t" >"$WORK/full.txt" 2>&1
	expect_eq "disk full: not truncated inside a chunk (the SYMBOLS chunk cut too)" false \
		"$(q "$WORK/full.json" summary quality.truncated)"
	if [ "$(q "$WORK/full.json" summary quality.complete)" = true ]; then
		expect_eq "disk full, END written: ended early" \
			"mprof could not write the trace to its end (No space left on device)" \
			"$(q "$WORK/full.json" summary ended_early)"
		expect_match "disk full, END written: header" \
			'^mprof report: .* \(incomplete: data was lost; see data and warnings\)$' \
			"$(head -n 1 "$WORK/full.txt")"
		expect_match "disk full, END written: what was lost" \
			'^data lost: +the events after mprof failed to write the trace \(No space left on device\)' \
			"$(cat "$WORK/full.txt")"
		# the peak RSS spans the whole run, the heap peak only the part
		# written: no note that most memory is not malloc blocks (there
		# was one: 64 MiB leaked after the disk filled)
		expect_eq "disk full, END written: no peak RSS note" "" \
			"$(grep '^note: .*peak RSS' "$WORK/full.txt")"
		expect_eq "disk full, END written: json rss_mostly_unseen" false \
			"$(q "$WORK/full.json" summary rss_mostly_unseen)"
	else
		expect_eq "disk full, no END: ended early" \
			"the trace has no END record (the recording did not finish)" \
			"$(q "$WORK/full.json" summary ended_early)"
		expect_match "disk full, no END: header" \
			'^mprof report: .* \(exact until the recording ended early\)$' \
			"$(head -n 1 "$WORK/full.txt")"
	fi
	expect_match "disk full: live at end, not leaked" '^live at end: ' "$(cat "$WORK/full.txt")"
	# 20 children (each a fork child and its /bin/true) on a full disk:
	# the first trace that cannot be created is named, the others counted
	# in one line (39; each image was named by pid before: 40 lines, pairs alike)
	rm -f "$WORK/full"/*
	head -c 28000 /dev/zero >"$WORK/full/filler" # one page left: the program's trace
	build_c "$WORK/fork_execs" "$PROGS_DIR/fork_execs.c"
	RUN_NAME=full-children mprof_run 60 "$WORK/full/c" -- "$WORK/fork_execs" 20 /bin/true
	expect_eq "disk full, 20 children: the program's status" 0 "$RUN_STATUS"
	expect_eq "disk full, 20 children: one line names the first" 1 \
		"$(grep -c '^mprof: warning: cannot create a trace beside .*/full/c for process [0-9]* (.*): No space left on device; it is not recorded$' "$RUN_ERR")"
	expect_eq "disk full, 20 children: one line counts the others" \
		"mprof: warning: 39 more process images are not recorded: their traces could not be created either (the first failed with: No space left on device)" \
		"$(grep 'more process images' "$RUN_ERR")"
	umount "$WORK/full"
else
	echo "note: cannot mount a tmpfs here (not root?): the full disk is not checked"
fi
finish
