#!/bin/bash
# boost-fibers.sh - a real coroutine library, boost.coroutine2 on
# boost.context's own stack switching (not makecontext), with a generator on
# 6 KiB and 16 KiB stacks that allocates 8 frames down: under mprof it runs
# as without it and its call stacks are whole, from gen_leaf() through the
# generator's body to boost.context's entry (make_fcontext).  On the 6 KiB
# stack, which has no guard page, libunwind's walk on the program's stack
# overran it into the heap and the C library aborted ("double free or
# corruption"); the walk now runs on the recorder's stack
# (preload/rec_stack.h).  Skips without libboost-context-dev.
# Program and facts: tests/progs/boost_fibers.cpp.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
[ -f /usr/include/boost/coroutine2/all.hpp ] ||
	skip "boost.coroutine2 is not installed (apt package libboost-context-dev)"
build_cxx "$WORK/boost_fibers" "$PROGS_DIR/boost_fibers.cpp" -lboost_context

# gen_leaf's new std::string site: its frames' functions without
# parameter lists, leaf first
leaf_frames() {
	json_eval "$1" "' '.join(f['function'].split('(')[0].split('<')[0]
		for f in [s for s in d['sites'] if s['frames'][0]['function'] == 'gen_leaf(int)'][0]['frames']
		if f['function'].startswith(('gen_', 'make_fcontext')))"
}

checked=0
for size in 6144 16384; do
	fits_natively "fiber stack" "$WORK/boost_fibers" "$size" || continue
	checked=$((checked + 1))
	t="$WORK/t-$size" r="$WORK/r-$size.json"
	RUN_NAME="mprof-$size" mprof_run 60 "$t" -- "$WORK/boost_fibers" "$size"
	expect_eq "$size B fiber stack: exit status" 0 "$RUN_STATUS"
	expect_file_eq "$size B fiber stack: output" "$WORK/native-$size.out" "$RUN_OUT"
	report_json "$r" "$t" || continue
	# 200 objects of 32 bytes, 200 buffers of 101..107 bytes (sum 20794)
	expect_site "$r" gen_leaf 400 27194 0 0
	expect_eq "$size B: gen_leaf's stack" \
		"gen_leaf gen_descend gen_descend gen_descend gen_descend gen_descend gen_descend gen_descend gen_body make_fcontext" \
		"$(leaf_frames "$r")"
	expect_eq "$size B: no stack truncated" 0 \
		"$(json_eval "$r" "sum(1 for s in d['sites'] if s['truncated'])")"
done
expect_eq "sizes checked (6 KiB and 16 KiB)" 2 "$checked"
finish
