#!/bin/bash
# no-cfi-frames.sh - mallocs called through frames no CFI covers (as Go's
# runtime.asmcgocall on every cgo call, or JIT code): the recorder's own
# unwinder guesses them as libunwind does (a frame-pointer frame when rbp is
# at most 16 KiB above sp, else the end of the stack) instead of falling
# back to libunwind at every capture, which made a cgo program's mallocs 10
# times as costly as a C program's.  Under MPROF_UNWIND=check no capture
# falls back or differs from libunwind's; the sites have their exact counts
# and stacks.  Program and facts: tests/progs/no_cfi_frames.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/no_cfi_frames" "$PROGS_DIR/no_cfi_frames.c"

MPROF_UNWIND=check mprof_run 120 "$WORK/trace" -- "$WORK/no_cfi_frames"
expect_eq "exit status" 0 "$RUN_STATUS"
expect_eq "stdout" "no cfi frames: done" "$(cat "$RUN_OUT")"
expect_exact_unwind
expect_match "no capture fell back to libunwind" ' 0 fallbacks to libunwind' "$CHECK"

report_json "$WORK/r.json" "$WORK/trace"
R="$WORK/r.json"
#                                          allocs bytes  leak-blocks leak-bytes
expect_site "$R" "make_frame_block&through_frame" 3000 120000 5 200
expect_site "$R" "make_bare_block&through_no_frame" 2000 48000 3 72
expect_eq "the frame-pointer guess goes on to main" main "$(q "$R" caller through_frame)"
expect_eq "a no-CFI frame with rbp 0 ends the stack" 0 \
	"$(q "$R" sites "make_bare_block&main")"
expect_eq "summary: unmatched frees" 0 "$(q "$R" summary unmatched_frees)"
finish
