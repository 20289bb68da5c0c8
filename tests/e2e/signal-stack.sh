#!/bin/bash
# signal-stack.sh - a signal handler that allocates on a small alternate
# signal stack runs under mprof as it runs without it.  On an 8 KiB stack
# (glibc's SIGSTKSZ) the handler's allocations crashed the program: the own
# unwinder cannot step through the signal frame, and libunwind's walk takes
# 4-6 KiB of stack; on 6 KiB the recorder's first call of a C library
# function (lazy binding saves the vector registers: 2.5 KiB here) did.
# Now the recorder keeps the allocator's caller only (the stack marked
# truncated) when the signal stack is short, and binds its imports at load.
# Each size is checked only where the program runs without mprof (the
# kernel's signal frame is larger on processors with wider registers).
# Program and facts: tests/progs/signal_stack.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/signal_stack" "$PROGS_DIR/signal_stack.c"

checked=0
for size in 65536 8192 6144; do
	run_cmd 30 "native-$size" "$WORK/signal_stack" "$size"
	if [ "$RUN_STATUS" != 0 ]; then
		echo "# a $size-byte signal stack is too small for the program itself here"
		continue
	fi
	checked=$((checked + 1))
	for mode in dwarf libunwind; do
		MPROF_UNWIND=$mode RUN_NAME="$mode-$size" mprof_run 60 "$WORK/t-$mode-$size" -- \
			"$WORK/signal_stack" "$size"
		expect_eq "$size B signal stack, $mode: exit status" 0 "$RUN_STATUS"
		expect_eq "$size B signal stack, $mode: output" "handled 100" "$(cat "$RUN_OUT")"
		report_json "$WORK/r-$mode-$size.json" "$WORK/t-$mode-$size" || continue
		expect_site "$WORK/r-$mode-$size.json" deep_alloc 100 10000 0 0
		expect_site "$WORK/r-$mode-$size.json" handler_keep 100 500000 100 500000
	done
done
expect_eq "sizes checked (64 KiB and SIGSTKSZ at least)" 1 "$([ "$checked" -ge 2 ] && echo 1)"
finish
