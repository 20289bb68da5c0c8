#!/bin/bash
# aot-fd-race.sh - a module without .eh_frame_hdr (tests/progs/aot_frames_lib.c,
# as mono's AOT images) is decided once a load, and its file is read by a
# child of a descriptor table of its own: the recorder once opened the file
# inside malloc at every rule-cache miss in such a module (and libunwind at
# its walks through one with .eh_frame), so another thread's
# open got a number other than the lowest free one, and its close_range or
# dup2 could have closed the recorder's descriptor (and the recorder's close
# then one of the program's).  Program and facts: tests/progs/aot_fd_race.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/libaot_frames_lib.so" "$PROGS_DIR/aot_frames_lib.c" -shared -fPIC -O0 \
	-fno-omit-frame-pointer -fno-asynchronous-unwind-tables -fno-unwind-tables \
	-Wl,--no-eh-frame-hdr
mkdir -p "$WORK/eh" || hard_error "mkdir $WORK/eh"
build_c "$WORK/eh/libaot_frames_lib.so" "$PROGS_DIR/aot_frames_lib.c" -shared -fPIC -O0 \
	-fomit-frame-pointer -fasynchronous-unwind-tables -Wl,--no-eh-frame-hdr
build_c "$WORK/aot_fd_race" "$PROGS_DIR/aot_fd_race.c" -pthread -ldl
LIB=$WORK/libaot_frames_lib.so
EH=$WORK/eh/libaot_frames_lib.so

run_cmd 120 native "$WORK/aot_fd_race" "$LIB" "$EH"
expect_eq "native: exit status" 0 "$RUN_STATUS"
expect_match "native: no surprise" '^fd race: 0 surprises in [1-9][0-9]* opens$' "$(head -1 "$RUN_OUT")"
# each load must be decided afresh: one file's verdict kept for the other
# would guess frames in the library that has .eh_frame and no frame pointer
expect_eq "native: the libraries took turns at one address" \
	"loads where the last one was: 7" "$(tail -1 "$RUN_OUT")"

MPROF_UNWIND=check RUN_NAME=check mprof_run 120 "$WORK/check.trace" -- \
	"$WORK/aot_fd_race" "$LIB" "$EH"
expect_exact_unwind check
# libunwind reads the file of a module with .eh_frame and no .eh_frame_hdr
# at a walk there, opening it inside malloc: the own unwinder parses it
expect_match "check: no capture fell back to libunwind" ' 0 fallbacks to libunwind' "$CHECK"

mprof_run 120 "$WORK/trace" -- "$WORK/aot_fd_race" "$LIB" "$EH"
expect_eq "exit status" 0 "$RUN_STATUS"
expect_match "no surprise: open gave the lowest number, the one above was free" \
	'^fd race: 0 surprises in [1-9][0-9]* opens$' "$(head -1 "$RUN_OUT")"

# the reads of a file: one a load, not one a rule-cache miss (64 a load)
if command -v strace >/dev/null 2>&1; then
	# (LeakSanitizer, in a sanitizer build, does not work under ptrace)
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		run_cmd 120 strace strace -f -qq -e trace=openat -o "$WORK/strace.txt" \
		"$MPROF" run -o "$WORK/strace.trace" -- "$WORK/aot_fd_race" "$LIB" "$EH"
	expect_eq "under strace: exit status" 0 "$RUN_STATUS"
	expect_eq "opens of the libraries' files: 4 + 4 by the loader, as many by the recorder" \
		"8 8" "$(grep -c "\"$LIB\"" "$WORK/strace.txt") $(grep -c "\"$EH\"" "$WORK/strace.txt")"
fi
finish
