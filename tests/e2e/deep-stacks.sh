#!/bin/bash
# deep-stacks.sh - call stacks deeper than --max-frames are truncated, and
# the recorder's call-site cache reuses them (it checks one frame past the
# kept ones) without a reused stack ever differing from a full walk: under
# MPROF_UNWIND=check no capture differs from libunwind's, none of the
# reused ones from a full walk, and the call-site cache answered; the sites
# have their exact counts, alone and with shallow stacks in between, with
# --max-frames 16 and with the default (64).  The report says how many
# stacks were cut at the limit and how to keep more; with a limit above the
# deepest stack it says nothing of it.
# Program and facts: tests/progs/deep_stacks.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/deep_stacks" "$PROGS_DIR/deep_stacks.c"

for mode in truncated mixed deep; do
	arg= frames="--max-frames 16"
	[ "$mode" = mixed ] && arg=mixed
	[ "$mode" = deep ] && arg=deep frames= # the default, 64
	RUN_NAME=$mode MPROF_UNWIND=check mprof_run 120 "$WORK/$mode.trace" $frames \
		-- "$WORK/deep_stacks" $arg
	expect_eq "$mode: exit status" 0 "$RUN_STATUS"
	expect_eq "$mode: stdout" "deep stacks: done" "$(cat "$RUN_OUT")"
	expect_exact_unwind "$mode"
	# Each call site repeats 1000 times; a set of the cache holds 4 stacks,
	# so sites evict each other only when more than four share a set (only
	# possible in the mixed run, which has five).  Without truncated stacks
	# in the cache the truncated run gets none.
	expect_range "$mode: stacks from the call-site cache" 995 5000 "$CHECK_SITE_HITS"

	report_json "$WORK/$mode.json" "$WORK/$mode.trace"
	R="$WORK/$mode.json"
	all=$(q "$R" sum allocations alloc_leaf)
	shallow=$(q "$R" sum allocations "alloc_leaf&main")
	expect_eq "$mode: truncated stacks" 1 "$(q "$R" summary quality.truncated_stacks)"
	expect_eq "$mode: stacks cut at --max-frames" 1 \
		"$(q "$R" summary quality.stacks_cut_at_max_frames)"
	stacks=2 limit=16 more=64
	[ "$mode" = mixed ] && stacks=4
	[ "$mode" = deep ] && limit=64 more=256
	expect_eq "$mode: --max-frames in the JSON" $limit "$(q "$R" summary quality.max_frames)"
	expect_eq "$mode: the report's line on cut stacks" \
		"cut stacks:       1 of $stacks call stacks were cut at $limit frames, their outer callers not recorded; run with --max-frames $more to keep more" \
		"$("$MPROF" report --top 0 "$WORK/$mode.trace" 2>&1 | grep '^cut stacks:')"
	expect_eq "$mode: alloc_leaf: blocks live at exit" 0 "$(q "$R" sum leaked_blocks alloc_leaf)"
	if [ "$mode" != mixed ]; then
		expect_eq "$mode: sites" 1 "$(q "$R" sites alloc_leaf)"
		expect_eq "$mode: alloc_leaf: allocations" 3000 "$all"
		expect_eq "$mode: alloc_leaf: bytes" 1200000 "$(q "$R" sum allocated_bytes alloc_leaf)"
		expect_eq "$mode: no site reaches main" 0 "$shallow"
	else
		expect_eq "$mode: alloc_leaf: allocations" 5000 "$all"
		expect_eq "$mode: sites" 3 "$(q "$R" sites alloc_leaf)"
		expect_eq "$mode: the truncated stack's allocations" 3000 $((all - shallow))
		expect_eq "$mode: depth 2: allocations" 1000 \
			"$(q "$R" sum-size allocations 100 "alloc_leaf&main")"
		expect_eq "$mode: depth 5: allocations" 1000 \
			"$(q "$R" sum-size allocations 200 "alloc_leaf&main")"
	fi
done

# No stack reaches --max-frames 1024: none is cut, and the report is silent.
RUN_NAME=whole mprof_run 120 "$WORK/whole.trace" --max-frames 1024 -- "$WORK/deep_stacks" deep
expect_eq "whole: exit status" 0 "$RUN_STATUS"
report_json "$WORK/whole.json" "$WORK/whole.trace"
expect_eq "whole: truncated stacks" 0 "$(q "$WORK/whole.json" summary quality.truncated_stacks)"
expect_eq "whole: stacks cut at --max-frames" 0 \
	"$(q "$WORK/whole.json" summary quality.stacks_cut_at_max_frames)"
expect_eq "whole: no line on cut stacks" "" \
	"$("$MPROF" report --top 0 "$WORK/whole.trace" 2>&1 | grep '^cut stacks:')"
finish
