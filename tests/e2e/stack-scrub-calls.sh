#!/bin/bash
# stack-scrub-calls.sh - the deep scrub after a stack capture
# (preload/stack_scrub.h) asks mincore only about stack pages it does not
# know resident.  mincore (1.8 us here) was called at every capture: 2,955
# calls in `python3 -c 'import json, decimal, asyncio'`, 203 for the 200
# sites below; each thread now keeps the run of its stack pages mincore
# found resident, forgotten after a madvise, munmap, mremap or fixed mmap.
# Counted with strace (skipped without it).
# Program and facts: tests/progs/stack_scrub_calls.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/stack_scrub_calls" "$PROGS_DIR/stack_scrub_calls.c" -pthread

# ---- mincore calls for 200 captures in one thread ----
command -v strace >/dev/null 2>&1 || skip "strace is not installed: the mincore calls are not counted"
SITES=200
# LeakSanitizer does not run under ptrace.
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	run_cmd 120 count strace -f -qq -e trace=mincore -o "$WORK/count.calls" \
	"$MPROF" run -o "$WORK/t-count" -- "$WORK/stack_scrub_calls" count "$SITES"
expect_eq "count: exit status" 0 "$RUN_STATUS"
expect_eq "count: sites" "sites $SITES" "$(cat "$RUN_OUT")"
calls=$(grep -c 'mincore(' "$WORK/count.calls")
echo "mincore calls for $SITES captures: $calls"
expect_range "count: mincore calls for $SITES captures at $SITES sites" 0 20 "$calls"
report_json "$WORK/r.json" "$WORK/t-count"
expect_eq "count: the thread's allocations, all recorded" "$SITES" \
	"$(q "$WORK/r.json" sum allocations nest)"
finish
