#!/bin/bash
# seccomp-waits.sh - a program under a seccomp filter that kills on
# sched_yield, nanosleep, clock_nanosleep and futex, none of which it calls
# itself, keeps running when its recorder waits for room in a full ring.
# The ring wait yielded and slept (and woke the launcher by futex): the
# program died of SIGSYS under mprof and ran to its end without it.  Under
# a filter the recorder knows of, its waits now pause on the processor.
# Program and facts: tests/progs/seccomp_waits.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/seccomp_waits" "$PROGS_DIR/seccomp_waits.c" -pthread

MPROF_RING_KIB=64 mprof_run 60 "$WORK/t" -- "$WORK/seccomp_waits"
grep -q "^seccomp: " "$RUN_ERR" && skip "seccomp filters are refused here: $(head -c 300 "$RUN_ERR")"
expect_eq "exit status as without mprof (not SIGSYS)" 0 "$RUN_STATUS"
expect_eq "stdout as without mprof" done "$(cat "$RUN_OUT")"
report_json "$WORK/t.json" "$WORK/t" || finish
expect_eq "exit status in the trace" 0 "$(q "$WORK/t.json" summary program.exit_status)"
expect_eq "allocations (churn's 200000, the thread's DTV, stdout's buffer)" 200002 \
	"$(q "$WORK/t.json" summary allocations)"
expect_eq "frees" 200000 "$(q "$WORK/t.json" summary frees)"
expect_match "the recorder waited for room under the filter" '^[1-9][0-9]*$' \
	"$(q "$WORK/t.json" summary profiler.ring_waits)"
finish
