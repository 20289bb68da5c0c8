#!/bin/bash
# rbp-frames.sh - call stacks through frames whose CFA is rbp-based (a
# variable-length array, alloca in a recursion, and two stacks that differ
# only above an alloca frame whose callee sits at the same address in both)
# are exact when the recorder reuses cached frames through them: under
# MPROF_UNWIND=check no capture differs from libunwind's and no reused stack
# from a full walk, stacks are reused, and the sites have their exact counts.
# Program and facts: tests/progs/rbp_frames.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
SRC="$PROGS_DIR/rbp_frames.c"
build_c "$WORK/rbp_frames" "$SRC"
source_line "$SRC" "/* MAKE_BLOCK_LINE */"
MAKE_LINE=$SOURCE_LINE

MPROF_UNWIND=check mprof_run 120 "$WORK/trace" -- "$WORK/rbp_frames"
expect_eq "exit status (2: the program found no alloca size to calibrate)" 0 "$RUN_STATUS"
expect_eq "stdout" "rbp frames: done" "$(cat "$RUN_OUT")"
expect_exact_unwind
expect_match "cached frames were reused" ' [1-9][0-9]* reused cached frames' "$CHECK"

report_json "$WORK/r.json" "$WORK/trace"
R="$WORK/r.json"
expect_site "$R" make_block 30000 1440000 10 480
expect_eq "make_block is called from through_vla" through_vla "$(q "$R" caller make_block)"
expect_eq "make_block frame: line" "$MAKE_LINE" "$(q "$R" frame make_block line)"
expect_site "$R" nested_alloc 3000 300000 0 0
# The two stacks only with_alloca's rbp tells apart (see the program).
expect_site "$R" "leaf_alloc&from_deep" 1000 24000 0 0
expect_site "$R" "leaf_alloc&from_shallow" 1000 24000 0 0
expect_eq "summary: unmatched frees" 0 "$(q "$R" summary unmatched_frees)"
finish
