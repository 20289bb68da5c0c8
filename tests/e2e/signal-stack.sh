#!/bin/bash
# signal-stack.sh - a signal handler that allocates on a small alternate
# signal stack runs under mprof as it runs without it.  On an 8 KiB stack
# (glibc's SIGSTKSZ) the handler's allocations crashed the program: the own
# unwinder cannot step through the signal frame, and libunwind's walk takes
# 4-6 KiB of stack; on 6 KiB the recorder's first call of a C library
# function (lazy binding saves the vector registers: 2.5 KiB here) did.
# The recorder then kept the allocator's caller only (the stack marked
# truncated) when the signal stack was short; now the walk runs on a stack
# of the recorder's (preload/rec_stack.h) and the stacks are whole, through
# the signal frame into main().  The recorder binds its imports at load.
# Each size is checked only where the program runs without mprof (the
# kernel's signal frame is larger on processors with wider registers).
# Program and facts: tests/progs/signal_stack.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/signal_stack" "$PROGS_DIR/signal_stack.c"

# the frames of the site whose first frame is $2 that are the program's
# functions or raise(), leaf first, deep_alloc's 21 counted as one
our_frames() {
	json_eval "$1" "' '.join(f['function'] for i, f in enumerate(site('$2')[0]['frames'])
		if f.get('function') in ('deep_alloc', 'handler_keep', 'on_usr1', 'raise', 'main')
		and not (i and f['function'] == 'deep_alloc'))"
}

checked=0
for size in 65536 8192 6144; do
	fits_natively "signal stack" "$WORK/signal_stack" "$size" || continue
	checked=$((checked + 1))
	for mode in dwarf libunwind; do
		MPROF_UNWIND=$mode RUN_NAME="$mode-$size" mprof_run 60 "$WORK/t-$mode-$size" -- \
			"$WORK/signal_stack" "$size"
		expect_eq "$size B signal stack, $mode: exit status" 0 "$RUN_STATUS"
		expect_eq "$size B signal stack, $mode: output" "handled 100" "$(cat "$RUN_OUT")"
		report_json "$WORK/r-$mode-$size.json" "$WORK/t-$mode-$size" || continue
		expect_site "$WORK/r-$mode-$size.json" deep_alloc 100 10000 0 0
		expect_site "$WORK/r-$mode-$size.json" handler_keep 100 500000 100 500000
		expect_eq "$size B, $mode: deep_alloc's stack" "deep_alloc on_usr1 raise main" \
			"$(our_frames "$WORK/r-$mode-$size.json" deep_alloc)"
		expect_eq "$size B, $mode: deep_alloc's 21 frames" 21 \
			"$(json_eval "$WORK/r-$mode-$size.json" \
				"sum(f.get('function') == 'deep_alloc' for f in site('deep_alloc')[0]['frames'])")"
		expect_eq "$size B, $mode: handler_keep's stack" "handler_keep on_usr1 raise main" \
			"$(our_frames "$WORK/r-$mode-$size.json" handler_keep)"
		expect_eq "$size B, $mode: no stack truncated" 0 \
			"$(json_eval "$WORK/r-$mode-$size.json" "sum(1 for s in d['sites'] if s['truncated'])")"
	done
done
expect_eq "sizes checked (64 KiB and SIGSTKSZ at least)" 1 "$([ "$checked" -ge 2 ] && echo 1)"
finish
