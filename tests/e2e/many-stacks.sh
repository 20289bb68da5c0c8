#!/bin/bash
# many-stacks.sh - 524288 distinct call stacks, one block each: every one is
# recorded in a site of its own, and the recorder's own memory for them
# (its stack table: 407 MiB of peak RSS before its entries shrank and old
# tables gave their pages back, against heaptrack's 133 MiB) is not blamed
# on the program: no "peak RSS over 4 times the heap peak" note.
# Program and facts: tests/progs/many_stacks.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/many_stacks" "$PROGS_DIR/many_stacks.c" -fno-omit-frame-pointer

mprof_run 120 "$WORK/trace" -- "$WORK/many_stacks"
expect_eq "exit status" 0 "$RUN_STATUS"
expect_eq "stdout" "kept 524288 blocks" "$(cat "$RUN_OUT")"
# -n 1: the JSON report of 524289 sites in full is hundreds of MB
report_json "$WORK/r.json" "$WORK/trace" -n 1
R="$WORK/r.json"
expect_eq "sites (one per call stack, and stdout's buffer)" 524289 "$(q "$R" get sites_total)"
expect_eq "summary: allocations" 524289 "$(q "$R" summary allocations)"
expect_eq "summary: blocks live at exit" 524289 "$(q "$R" summary leaked_blocks)"
expect_eq "summary: stacks truncated" 0 "$(q "$R" summary quality.truncated_stacks)"
expect_eq "peak RSS not called mostly unseen (the recorder's memory is left out)" false \
	"$(q "$R" summary rss_mostly_unseen)"
expect_range "recorder memory (KiB)" 1 4194304 "$(q "$R" summary profiler.recorder_kib)"
finish
