#!/bin/bash
# libunwind-late.sh - libunwind, the own unwinder's fallback, is loaded
# only when a capture first needs it: its dlopen was most of the start-up
# cost of every short process (sh, cc, as, ld in a build), and almost no
# process falls back.  It is never loaded where a thread could hold the
# loader's lock: before the first pthread_create, or at a later capture of
# a single-threaded process whose whole stack holds no frame of the loader
# and none of the C library's but its start-up frames and the allocator's
# caller.  A capture that falls back before then keeps the allocator's
# caller only, marked truncated, and the first says so.  Program and
# facts: tests/progs/cfi_expression.c (a frame whose CFA rule is a DWARF
# expression, which the own unwinder leaves to libunwind).
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/cfi_expression" "$PROGS_DIR/cfi_expression.c" -pthread

CUT='a call stack was cut to its first frame: the own unwinder could not walk a frame before libunwind, its fallback, was loaded'
THROUGH="leaf_block&through_expression&main"
# the number of sites whose whole stack is the frame $2
cut_sites() {
	json_eval "$1" "len([s for s in site('$2') if len(s['frames']) == 1 and s['truncated']])"
}

for mode in none single thread; do
	RUN_NAME=$mode mprof_run 60 "$WORK/$mode.trace" -- "$WORK/cfi_expression" "$mode"
	expect_eq "$mode: exit status" 0 "$RUN_STATUS"
	out=$(cat "$RUN_OUT")
	r="$WORK/$mode.json"
	report_json "$r" "$WORK/$mode.trace" || continue
	case $mode in
	none)
		expect_eq "none: nothing falls back: libunwind is not loaded" "libunwind: no" "$out"
		expect_site "$r" "plain_block&main" 101 2424 0 0
		expect_eq "none: no stack truncated" 0 "$(q "$r" summary quality.truncated_stacks)"
		expect_eq "none: diagnostics" "[]" "$(q "$r" summary diagnostics)"
		;;
	single)
		expect_eq "single: libunwind was loaded" "libunwind: yes" "$out"
		expect_site "$r" "$THROUGH" 100 4000 0 0
		expect_eq "single: the first fallback is cut to its caller" 1 \
			"$(cut_sites "$r" leaf_block)"
		expect_eq "single: one stack truncated" 1 \
			"$(q "$r" summary quality.truncated_stacks)"
		expect_site "$r" "plain_block&main" 1 24 0 0
		expect_match "single: the cut is said once" "'count': 1" \
			"$(json_eval "$r" "[x for x in d['summary']['diagnostics'] if x['text'] == '$CUT']")"
		;;
	thread)
		expect_eq "thread: libunwind was loaded" "libunwind: yes" "$out"
		expect_site "$r" "$THROUGH" 101 4040 0 0
		expect_eq "thread: no stack cut" 0 "$(cut_sites "$r" leaf_block)"
		expect_eq "thread: no stack truncated" 0 "$(q "$r" summary quality.truncated_stacks)"
		expect_eq "thread: diagnostics" "[]" "$(q "$r" summary diagnostics)"
		;;
	esac
done

# MPROF_UNWIND=check loads libunwind at start: every capture through the
# expression frame falls back, none is cut
MPROF_UNWIND=check RUN_NAME=check mprof_run 60 "$WORK/check.trace" -- \
	"$WORK/cfi_expression" single
expect_eq "check: exit status" 0 "$RUN_STATUS"
expect_exact_unwind check
expect_match "check: the fallbacks" ' 101 fallbacks to libunwind' "$CHECK"
report_json "$WORK/check.json" "$WORK/check.trace" &&
	expect_site "$WORK/check.json" "$THROUGH" 101 4040 0 0
finish
