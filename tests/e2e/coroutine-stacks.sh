#!/bin/bash
# coroutine-stacks.sh - coroutines on 4 KiB and 16 KiB makecontext stacks
# that allocate 10 frames down run under mprof as without it, and their
# call stacks are whole: the allocating function, its callers on the
# coroutine's stack up to the coroutine's body, nothing cut.  On the 4 KiB
# stack the program died of SIGSEGV: a capture off the thread's own stack
# fell back to libunwind, whose walk takes 4-6 KiB of the program's stack;
# now the own unwinder walks it, reading only pages it checked, and what
# needs more stack runs on the recorder's (preload/rec_stack.h).  Each size
# is checked only where the program runs without mprof.
# Program and facts: tests/progs/coroutine_stacks.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/coroutine_stacks" "$PROGS_DIR/coroutine_stacks.c"

# the named frames of the site whose first frame is $2, leaf first
named_frames() {
	json_eval "$1" "' '.join(f['function'] for f in site('$2')[0]['frames'] if f.get('function'))"
}

descend="co_descend co_descend co_descend co_descend co_descend co_descend co_descend co_descend co_descend"
checked=0
for size in 4096 16384; do
	fits_natively "coroutine stack" "$WORK/coroutine_stacks" "$size" || continue
	checked=$((checked + 1))
	for mode in dwarf libunwind; do
		t="$WORK/t-$mode-$size" r="$WORK/r-$mode-$size.json"
		MPROF_UNWIND=$mode RUN_NAME="$mode-$size" mprof_run 60 "$t" -- \
			"$WORK/coroutine_stacks" "$size"
		expect_eq "$size B coroutine stack, $mode: exit status" 0 "$RUN_STATUS"
		expect_file_eq "$size B coroutine stack, $mode: output" \
			"$WORK/native-$size.out" "$RUN_OUT"
		report_json "$r" "$t" || continue
		expect_site "$r" co_leaf 100 6400 100 6400
		expect_site "$r" co_temp 100 3200 0 0
		expect_eq "$size B, $mode: co_leaf's stack" "co_leaf $descend co_body" \
			"$(named_frames "$r" co_leaf)"
		expect_eq "$size B, $mode: co_temp's stack" "co_temp $descend co_body" \
			"$(named_frames "$r" co_temp)"
		expect_eq "$size B, $mode: no stack truncated" 0 \
			"$(json_eval "$r" "sum(1 for s in d['sites'] if s['truncated'])")"
	done
done
expect_eq "sizes checked (4 KiB and 16 KiB)" 2 "$checked"

# How much of the coroutine's stack the recorder needs beyond the program's
# own use (the stack's high-water mark): under 1 KiB in both unwinders'
# modes (libunwind's walk took 5.5 KiB of it).
run_cmd 30 native-used "$WORK/coroutine_stacks" 65536 used
native_used=$(sed -n 's/^used //p' "$RUN_OUT")
expect_range "stack used without mprof" 100 4096 "$native_used"
for mode in dwarf libunwind; do
	MPROF_UNWIND=$mode RUN_NAME="used-$mode" mprof_run 60 "$WORK/t-used-$mode" -- \
		"$WORK/coroutine_stacks" 65536 used
	expect_eq "$mode: exit status (high-water run)" 0 "$RUN_STATUS"
	used=$(sed -n 's/^used //p' "$RUN_OUT")
	expect_range "$mode: stack the recorder used beyond the program's (bytes)" 0 1023 \
		"$((${used:-99999} - ${native_used:-0}))"
done
finish
