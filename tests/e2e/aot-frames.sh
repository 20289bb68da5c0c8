#!/bin/bash
# aot-frames.sh - mallocs called through a JIT stub (an anonymous executable
# page) and a library without .eh_frame_hdr (as mono's AOT images,
# mscorlib.dll.so): the recorder's own unwinder guesses the library's
# frame-pointer frame as libunwind does, instead of giving up at it on every
# capture.  Before, each such capture cost a checked read (process_vm_readv)
# and a libunwind walk (two sigprocmask calls), mono ran 2.5-3.5 times as
# slow under mprof as other runtimes, and in a single-threaded program,
# where libunwind was never loaded, every such stack was cut to one frame.
# Program and facts: tests/progs/aot_frames.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/libaot_frames_lib.so" "$PROGS_DIR/aot_frames_lib.c" -shared -fPIC \
	-fno-omit-frame-pointer -fno-asynchronous-unwind-tables -fno-unwind-tables \
	-Wl,--no-eh-frame-hdr
expect_eq "the library has no .eh_frame_hdr (no PT_GNU_EH_FRAME)" 0 \
	"$(readelf -lW "$WORK/libaot_frames_lib.so" | grep -c GNU_EH_FRAME)"
build_c "$WORK/aot_frames" "$PROGS_DIR/aot_frames.c" -L"$WORK" -laot_frames_lib \
	-Wl,--enable-new-dtags,-rpath,"$WORK"

MPROF_UNWIND=check RUN_NAME=check mprof_run 120 "$WORK/check.trace" -- "$WORK/aot_frames"
[ "$RUN_STATUS" = 77 ] && skip "not x86-64: the program's stub is x86-64 code"
expect_eq "check: exit status" 0 "$RUN_STATUS"
expect_eq "check: stdout" "aot frames: done" "$(cat "$RUN_OUT")"
expect_exact_unwind check
expect_match "check: no capture fell back to libunwind" ' 0 fallbacks to libunwind' "$CHECK"

mprof_run 120 "$WORK/trace" -- "$WORK/aot_frames"
expect_eq "exit status" 0 "$RUN_STATUS"
expect_eq "stdout" "aot frames: done" "$(cat "$RUN_OUT")"
report_json "$WORK/r.json" "$WORK/trace" || finish
R="$WORK/r.json"
#                                      allocs bytes  leak-blocks leak-bytes
expect_site "$R" "make_block&aot_call&main" 4000 192000 6 288
expect_eq "the stack: make_block, aot_call (no .eh_frame_hdr), the stub (no module), main" \
	"make_block:aot_frames aot_call:libaot_frames_lib.so None:? main:aot_frames" \
	"$(json_eval "$R" '" ".join("%s:%s" % (f["function"], f["module"].split("/")[-1]) for f in site("make_block")[0]["frames"][:4])')"
expect_eq "no stack was cut" 0 "$(q "$R" summary quality.truncated_stacks)"

# the same library with .eh_frame but no .eh_frame_hdr and no frame pointer:
# libunwind reads its .eh_frame, so the own unwinder must not guess there
mkdir -p "$WORK/eh" || hard_error "mkdir $WORK/eh"
build_c "$WORK/eh/libaot_frames_lib.so" "$PROGS_DIR/aot_frames_lib.c" -shared -fPIC \
	-fomit-frame-pointer -fasynchronous-unwind-tables -Wl,--no-eh-frame-hdr
MPROF_UNWIND=check RUN_NAME=eh LD_LIBRARY_PATH="$WORK/eh" \
	mprof_run 120 "$WORK/eh.trace" -- "$WORK/aot_frames"
expect_eq "with .eh_frame: exit status" 0 "$RUN_STATUS"
expect_exact_unwind "with .eh_frame"

# the checked reads: one per capture through the library before
if command -v strace >/dev/null 2>&1; then
	# (LeakSanitizer, in a sanitizer build, does not work under ptrace)
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		run_cmd 120 strace strace -f -qq -c -e trace=process_vm_readv -o "$WORK/strace.txt" \
		"$MPROF" run -o "$WORK/strace.trace" -- "$WORK/aot_frames"
	expect_eq "under strace: exit status" 0 "$RUN_STATUS"
	expect_range "process_vm_readv calls for 4000 mallocs" 0 40 \
		"$(awk '$NF == "process_vm_readv" { n = $4 } END { print n + 0 }' "$WORK/strace.txt")"
fi
finish
