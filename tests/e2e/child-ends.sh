#!/bin/bash
# child-ends.sh - what a fork child's trace says of how it ended.  A child
# killed by a signal left no exit note, and its report said "exact: every
# allocation recorded", "ended" and "leaked ... (live at exit)" as for a
# child that called _exit(); now the launcher reads the status a child
# shows while it is a zombie (its parent waits 500 ms here), so the killed
# child is "killed by signal 9 (SIGKILL)" with its 3 blocks live at the
# end, not leaks, and the _exit(7) child "exited with status 7" with 4
# leaked blocks.  When the parent waits at once the child is never a
# zombie long enough to be read: the status then comes from the parent's
# waitpid (the reap table, tests/e2e/reaped-children.sh), the same.
# Program and facts: tests/progs/child_ends.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/child_ends" "$PROGS_DIR/child_ends.c"

# child_trace DIR N: the trace of the Nth child forked (1-3), the one that
# left N + 2 blocks
child_trace() {
	traces_by_allocations keep_blocks "$1"/t.[0-9]* | sed -n "${2}p"
}

mkdir "$WORK/slow" "$WORK/fast"
RUN_NAME=slow mprof_run 60 "$WORK/slow/t" -- "$WORK/child_ends" 500
expect_eq "parent waits 500 ms: exit status" 0 "$RUN_STATUS"
expect_eq "parent waits 500 ms: stdout" "killed 9 quick 7 exits 5" "$(cat "$RUN_OUT")"
run_cmd 60 k "$MPROF" report -n 0 "$(child_trace "$WORK/slow" 1)"
expect_match "killed child: the signal" '^program: .* killed by signal 9 \(SIGKILL\)$' \
	"$(grep '^program:' "$RUN_OUT")"
expect_eq "killed child: 3 blocks live at the end, not leaks" \
	"live at end:      3000 B (2.9 KiB) in 3 blocks (live when the recording ended)" \
	"$(grep -E '^(leaked|live at end):' "$RUN_OUT")"
run_cmd 60 q "$MPROF" report -n 0 "$(child_trace "$WORK/slow" 2)"
expect_match "_exit child: its status" '^program: .* exited with status 7$' "$(grep '^program:' "$RUN_OUT")"
expect_eq "_exit child: 4 leaked blocks" "leaked:           4000 B (3.9 KiB) in 4 blocks (live at exit)" \
	"$(grep -E '^(leaked|live at end):' "$RUN_OUT")"
run_cmd 60 e "$MPROF" report -n 0 "$(child_trace "$WORK/slow" 3)"
expect_match "exit child: its status" '^program: .* exited with status 5$' "$(grep '^program:' "$RUN_OUT")"
expect_eq "exit child: 5 leaked blocks" "leaked:           5000 B (4.9 KiB) in 5 blocks (live at exit)" \
	"$(grep -E '^(leaked|live at end):' "$RUN_OUT")"
report_json "$WORK/k.json" "$(child_trace "$WORK/slow" 1)"
expect_eq "killed child json: signal, ended early" "9 True" \
	"$(json_eval "$WORK/k.json" '"%s %s" % (d["summary"]["program"]["exit_signal"], d["summary"]["ended_early"] is not None)')"

# the parent reaps at once: each child's status is the one its waitpid saw
RUN_NAME=fast mprof_run 60 "$WORK/fast/t" -- "$WORK/child_ends" 0
expect_eq "parent waits at once: stdout" "killed 9 quick 7 exits 5" "$(cat "$RUN_OUT")"
run_cmd 60 fk "$MPROF" report -n 0 "$(child_trace "$WORK/fast" 1)"
expect_match "killed child, reaped at once: the signal" \
	'^program: .* killed by signal 9 \(SIGKILL\)$' "$(grep '^program:' "$RUN_OUT")"
expect_eq "killed child, reaped at once: 3 blocks live at the end, not leaks" \
	"live at end:      3000 B (2.9 KiB) in 3 blocks (live when the recording ended)" \
	"$(grep -E '^(leaked|live at end):' "$RUN_OUT")"
run_cmd 60 fq "$MPROF" report -n 0 "$(child_trace "$WORK/fast" 2)"
expect_match "_exit child, reaped at once: status 7" '^program: .* exited with status 7$' \
	"$(grep '^program:' "$RUN_OUT")"
finish
