#!/bin/bash
# recorder-memory.sh - the report's "recorder memory at most" is a bound of
# what the recorder had resident, below the peak RSS by at least the
# program's own memory.  It counted every recorder mapping whole (a 48 KiB
# recorder stack per thread, of which a few pages are touched): for 300
# threads 11.3 MiB of a peak RSS of 11.9 MiB, or more than the peak RSS,
# which the text then clamped to it.  Now the exit note counts the
# reservation's resident pages (mincore), and bytes given back whole.
# Program and facts: tests/progs/thread_crowd.c.
source "$(dirname "$0")/lib.sh"
require_mprof
make_work
build_c "$WORK/crowd" "$PROGS_DIR/thread_crowd.c" -pthread

mprof_run 120 "$WORK/trace" -q -- "$WORK/crowd"
expect_eq "exit status" 0 "$RUN_STATUS"
expect_eq "stdout" "thread_crowd done" "$(cat "$RUN_OUT")"
run_cmd 60 j "$MPROF" report --format json "$WORK/trace"
R="$WORK/j.out"
expect_eq "300000 allocations in work()" 300000 "$(q "$R" sum allocations work)"
rec=$(q "$R" summary profiler.recorder_kib)
rss=$(q "$R" summary peak_rss_kib)
# 300 thread stacks of at least a page each are the program's: 1200 KiB
expect_eq "recorder memory at least 1200 KiB below the peak RSS ($rec of $rss KiB)" yes \
	"$([ "$rec" -gt 0 ] && [ $((rss - rec)) -ge 1200 ] && echo yes || echo no)"
run_cmd 60 t "$MPROF" report "$WORK/trace"
expect_eq "text: the figure itself, not the peak RSS" 1 \
	"$(grep -c "recorder memory at most $((rec * 1024)) B " "$WORK/t.out")"

# Threads one after the other, each in a slot of its own: the rings count
# the most resident at once before a slot's ring is punched (each slot's
# writes since its start summed 24380 KiB against a peak RSS of 4 MiB for
# 2000).  Past 512 slots the launcher keeps no such mark (a scan of every
# slot at every punch) and counts each slot's writes: a bound not below the
# peak RSS is then said to bound nothing (it was said "at most" the peak
# RSS itself).
churn_case() {
	RUN_NAME=churn$1 mprof_run 120 "$WORK/churn$1" -q -- "$WORK/crowd" churn "$1"
	expect_eq "churn $1: exit status" 0 "$RUN_STATUS"
	run_cmd 60 cj "$MPROF" report --format json "$WORK/churn$1"
	rec=$(q "$WORK/cj.out" summary profiler.recorder_kib)
	rss=$(q "$WORK/cj.out" summary peak_rss_kib)
	expect_eq "churn $1: $(($1 * 1000)) allocations in work()" $(($1 * 1000)) \
		"$(q "$WORK/cj.out" sum allocations work)"
	if [ "$1" -le 400 ]; then
		expect_eq "churn $1: recorder memory below the peak RSS ($rec of $rss KiB)" yes \
			"$([ "$rec" -gt 0 ] && [ "$rec" -lt "$rss" ] && echo yes || echo no)"
	fi
	run_cmd 60 ct "$MPROF" report "$WORK/churn$1"
	if [ "$rec" -lt "$rss" ]; then
		want="recorder memory at most $((rec * 1024)) B "
	else
		want="recorder memory unknown (its bound, $((rec * 1024)) B .*, is not below the peak RSS, $((rss * 1024)) B "
	fi
	expect_eq "churn $1: the text's figure ($rec of $rss KiB)" 1 "$(grep -c "$want" "$WORK/ct.out")"
}
churn_case 400
churn_case 2000
finish
