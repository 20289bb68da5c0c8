#!/bin/bash
# no-cfi-frames.sh - mallocs called through frames no CFI covers (as Go's
# runtime.asmcgocall on every cgo call, or JIT code): the recorder's own
# unwinder guesses them as libunwind does (a frame-pointer frame when rbp is
# at most 16 KiB above sp, else the end of the stack) instead of falling
# back to libunwind at every capture, which made a cgo program's mallocs 10
# times as costly as a C program's.  Under MPROF_UNWIND=check no capture
# falls back or differs from libunwind's; the sites have their exact counts
# and stacks.  A guess whose return address cannot be code (on the stack,
# in argv's strings, above user space: busybox, built without CFI or frame
# pointers, showed "?? (0x7ffdf3ac49ac)") ends the stack there, truncated,
# under either unwinder.
# Program and facts: tests/progs/no_cfi_frames.c.
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
expect_site "$R" "make_stack_block&through_stack_frame" 1000 56000 2 112
expect_site "$R" "make_args_block&through_record" 500 36000 1 72
expect_site "$R" "make_text_block&through_record" 400 35200 1 88
# FUNC's sites: how many, then each one's frames and truncation, then how
# many frames without a name they hold
stack_facts() {
	echo "$(json_eval "$1" '"%d %s" % (len(site("'"$2"'")), " ".join(
		"%d %s" % (len(s["frames"]), s["truncated"]) for s in site("'"$2"'")))') $(q "$1" unnamed "$2")"
}
expect_eq "a stack address is no frame: the stack ends there, truncated" "1 2 True 0" \
	"$(stack_facts "$R" make_stack_block)"
expect_eq "nor is an address in argv's strings" "1 2 True 0" "$(stack_facts "$R" make_args_block)"
expect_eq "nor one above user space" "1 2 True 0" "$(stack_facts "$R" make_text_block)"
expect_eq "summary: unmatched frees" 0 "$(q "$R" summary unmatched_frees)"

# the same with libunwind's walk, which guesses the same frame
MPROF_UNWIND=libunwind RUN_NAME=lib mprof_run 120 "$WORK/lib.trace" -- "$WORK/no_cfi_frames"
expect_eq "libunwind: exit status" 0 "$RUN_STATUS"
report_json "$WORK/lib.json" "$WORK/lib.trace"
expect_site "$WORK/lib.json" "make_stack_block&through_stack_frame" 1000 56000 2 112
for f in make_stack_block make_args_block make_text_block; do
	expect_eq "libunwind: $f's stack ends, truncated, at the no-CFI frame" "1 2 True 0" \
		"$(stack_facts "$WORK/lib.json" $f)"
done
finish
