#!/bin/bash
# sparse-lifetimes.sh - lifetimes in ns are right in a program that
# allocates little: its blocks live 1.5 s and 0.2 s between two allocator
# calls.  (Time stamps taken only every 4096 events of a thread timed both
# frees at the thread's start: 0 ns.)  A sampled event is timed itself:
# blocks that live 3 ms, 30 ms apart, have an estimated average lifetime
# of about 3 ms (stamps taken only when the launcher's 10 ms tick moved
# gave most of them 0 ns, and a short sampled run's sites "0 ns").
# Program and facts: tests/progs/sparse_lifetimes.c; short_lives.c, below.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/sparse_lifetimes" "$PROGS_DIR/sparse_lifetimes.c"

mprof_run 60 "$WORK/trace" -- "$WORK/sparse_lifetimes"
expect_eq "exit status" 0 "$RUN_STATUS"
expect_eq "stdout" "ok" "$(cat "$RUN_OUT")"
report_json "$WORK/r.json" "$WORK/trace"
expect_site "$WORK/r.json" keep_block 2 200 0 0
# within one launcher time tick (10 ms) plus a loaded machine's delays
expect_range "keep_block: longest lifetime (ns)" 1500000000 2500000000 \
	"$(q "$WORK/r.json" sum lifetime_ns_max keep_block)"
expect_range "keep_block: shortest lifetime (ns)" 200000000 1200000000 \
	"$(q "$WORK/r.json" sum lifetime_ns_min keep_block)"

# short_lives prints the blocks' total lifetime in ns by its own clock,
# least (allocation's return to free's call) and most (allocation's call
# to free's return): a loaded host's oversleeps are in both
cat >"$WORK/short_lives.c" <<'PROG'
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static void pause_ms(long ms)
{
	struct timespec nap = { 0, ms * 1000000 };
	nanosleep(&nap, NULL);
}
static long long now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}
__attribute__((noinline)) static void *short_life(void)
{
	return malloc(1000);
}
int main(void)
{
	long long least = 0, most = 0;
	for (int i = 0; i < 10; i++) {
		long long t0 = now_ns(), t1, t2;
		void *volatile p = short_life();
		t1 = now_ns();
		pause_ms(3);
		t2 = now_ns();
		free(p);
		least += t2 - t1;
		most += now_ns() - t0;
		pause_ms(30);
	}
	printf("%lld %lld\n", least, most);
	return 0;
}
PROG
build_c "$WORK/short_lives" "$WORK/short_lives.c"
RUN_NAME=sampled mprof_run 60 "$WORK/sampled" --sample-rate 1 --sample-seed 1 -- "$WORK/short_lives"
expect_eq "sampled: exit status" 0 "$RUN_STATUS"
report_json "$WORK/s.json" "$WORK/sampled"
expect_site "$WORK/s.json" short_life 10 10000 0 0
# the program's average (3 ms and the oversleep: 9.3 ms seen under a
# parallel build, more at a load of 12), give or take a tick (10 ms); the
# faults gave 0 (timed at the thread's start) or 30 ms more (the gap)
read -r least most <"$RUN_OUT"
[[ "${least:-} ${most:-}" =~ ^[0-9]+\ [0-9]+$ ]] || least=0 most=0
expect_range "short_life, sampled: average lifetime (ns)" \
	$((least / 10 - 10000000 > 3000000 ? least / 10 - 10000000 : 3000000)) $((most / 10 + 10000000)) \
	"$(q "$WORK/s.json" sum lifetime_ns_avg short_life | cut -d. -f1)"
finish
