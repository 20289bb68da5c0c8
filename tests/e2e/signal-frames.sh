#!/bin/bash
# signal-frames.sh - allocations inside signal handlers, on 4 KiB and 8 KiB
# alternate signal stacks and on the thread's own stack, single and nested
# (a handler interrupted by another on the same stack), run under mprof as
# without it, and their call stacks go through each signal frame into the
# interrupted function and on to main.  On a signal stack the recorder kept
# the allocator's caller only (libunwind's 4-6 KiB walk would not fit);
# the walk now runs on the recorder's own stack (preload/rec_stack.h).
# Each case is checked only where the program runs without mprof (the
# kernel's signal frame takes 3.4 KiB on a processor with AVX-512).
# Program and facts: tests/progs/signal_frames.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/signal_frames" "$PROGS_DIR/signal_frames.c"

# the frames of the site whose first frame is $2 that are the program's
# functions or raise(), leaf first
our_frames() {
	json_eval "$1" "' '.join(f['function'] for f in site('$2')[0]['frames']
		if f.get('function') in ('usr1_leaf', 'on_usr1', 'usr2_leaf', 'on_usr2', 'raise',
					 'interrupted_fn', 'main'))"
}

checked=""
for case in "0 single" "0 nested" "4096 single" "8192 single" "8192 nested"; do
	set -- $case
	name="$1-$2"
	run_cmd 30 "native-$name" "$WORK/signal_frames" "$1" "$2"
	if [ "$RUN_STATUS" != 0 ]; then
		echo "# a $1-byte signal stack is too small for the program itself here ($2)"
		continue
	fi
	checked="$checked $name"
	t="$WORK/t-$name" r="$WORK/r-$name.json"
	RUN_NAME="mprof-$name" mprof_run 60 "$t" -- "$WORK/signal_frames" "$1" "$2"
	expect_eq "$name: exit status" 0 "$RUN_STATUS"
	expect_file_eq "$name: output" "$WORK/native-$name.out" "$RUN_OUT"
	report_json "$r" "$t" || continue
	expect_site "$r" usr1_leaf 50 2400 50 2400
	expect_eq "$name: usr1_leaf's stack" "usr1_leaf on_usr1 raise interrupted_fn main" \
		"$(our_frames "$r" usr1_leaf)"
	if [ "$2" = nested ]; then
		expect_site "$r" usr2_leaf 50 4000 50 4000
		expect_eq "$name: usr2_leaf's stack" \
			"usr2_leaf on_usr2 raise on_usr1 raise interrupted_fn main" \
			"$(our_frames "$r" usr2_leaf)"
	fi
	expect_eq "$name: no stack truncated" 0 \
		"$(json_eval "$r" "sum(1 for s in d['sites'] if s['truncated'])")"
done
expect_match "cases checked (the own stack and 8 KiB at least)" \
	"^ 0-single 0-nested( 4096-single)? 8192-single 8192-nested$" "$checked"
finish
