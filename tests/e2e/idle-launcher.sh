#!/bin/bash
# idle-launcher.sh - the launcher leaves a program that records little alone:
# while no ring fills, it waits up to 100 ms between rounds (it woke every
# 5 ms: some 290 times in a 1.5 s run, each one taking a processor from a
# program that keeps them all busy), the recorder times its events itself
# meanwhile, and a ring that fills to a quarter wakes the launcher.
# Counted with strace: the launcher's waits (ppoll) in a run of a program
# that sleeps 1.5 s.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
command -v strace >/dev/null 2>&1 || skip "strace is not installed"
make_work

cat >"$WORK/idle.c" <<'PROG'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static void pause_ms(long ms)
{
	struct timespec nap = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&nap, NULL);
}
__attribute__((noinline)) static void *live_40ms(void)
{
	return malloc(1000);
}
__attribute__((noinline)) static void *live_10ms(void)
{
	return malloc(500);
}
__attribute__((noinline)) static void *sleep_block(void)
{
	return malloc(100);
}
__attribute__((noinline)) static void *burst_block(int i)
{
	return malloc(16 + (size_t)(i % 100));
}
int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "sleep") == 0) {
		void *volatile p = sleep_block();
		pause_ms(1500);
		free(p);
	} else if (argc > 1 && strcmp(argv[1], "lives") == 0) {
		/* blocks that live 40 ms, 60 ms apart: no other event between */
		for (int i = 0; i < 10; i++) {
			void *volatile p = live_40ms();
			pause_ms(40);
			free(p);
			pause_ms(60);
		}
	} else if (argc > 1 && strcmp(argv[1], "short") == 0) {
		/* blocks that live 10 ms, a scheduler tick or more, 100 ms
		 * apart, once the launcher sleeps long */
		pause_ms(500);
		for (int i = 0; i < 10; i++) {
			void *volatile p = live_10ms();
			pause_ms(10);
			free(p);
			pause_ms(100);
		}
	} else {
		/* bursts after the launcher has gone to sleep */
		for (int r = 0; r < 3; r++) {
			pause_ms(400);
			for (int i = 0; i < 200000; i++) {
				void *volatile p = burst_block(i);
				free(p);
			}
		}
	}
	puts("ok");
	return 0;
}
PROG
build_c "$WORK/idle" "$WORK/idle.c"

# idle_run NAME OPTIONS...: `mprof run OPTIONS -- idle sleep` with the
# launcher's main thread (the collector) under strace; WAITS: its ppoll calls
idle_run() {
	local name=$1
	shift
	# LeakSanitizer cannot work under ptrace (a sanitizer build's mprof
	# would exit 1)
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		run_cmd 120 "$name" strace -qq -e trace=ppoll -o "$WORK/$name.calls" \
		"$MPROF" run -q -o "$WORK/$name.trace" "$@" -- "$WORK/idle" sleep
	WAITS=$(grep -c 'ppoll(' "$WORK/$name.calls")
}

for mode in exact paused sampled; do
	case $mode in
	exact) opts=() ;;
	paused) opts=(--paused) ;;
	sampled) opts=(--sampled) ;;
	esac
	idle_run "$mode" "${opts[@]}"
	expect_eq "$mode: exit status" 0 "$RUN_STATUS"
	expect_eq "$mode: stdout" ok "$(cat "$RUN_OUT")"
	# some 15 rounds, one per 100 ms, and a few at the start and end
	expect_true "$mode: the launcher waited at most 60 times in 1.5 s ($WAITS)" \
		[ "$WAITS" -le 60 ]
done
report_json "$WORK/exact.json" "$WORK/exact.trace"
expect_site "$WORK/exact.json" sleep_block 1 100 0 0
expect_range "exact: the 1.5 s block's lifetime (ns)" 1500000000 2500000000 \
	"$(q "$WORK/exact.json" sum lifetime_ns_max sleep_block)"

# No event between a malloc and its free 40 ms later, and no tick of the
# launcher's: the free is timed by the recorder itself (a stamp from the
# last tick would give lifetimes of 0).
RUN_NAME=lives mprof_run 120 "$WORK/lives.trace" -q -- "$WORK/idle" lives
expect_eq "lives: exit status" 0 "$RUN_STATUS"
report_json "$WORK/lives.json" "$WORK/lives.trace"
expect_site "$WORK/lives.json" live_40ms 10 10000 0 0
expect_range "lives: shortest lifetime (ns)" 40000000 400000000 \
	"$(q "$WORK/lives.json" sum lifetime_ns_min live_40ms)"

# The same with blocks that live 10 ms: the coarse clock moved between the
# malloc and the free, so the free is timed afresh (a recorder that waited
# for 10 ms on its coarse clock gave some lifetimes of 0).
RUN_NAME=short mprof_run 120 "$WORK/short.trace" -q -- "$WORK/idle" short
expect_eq "short: exit status" 0 "$RUN_STATUS"
report_json "$WORK/short.json" "$WORK/short.trace"
expect_site "$WORK/short.json" live_10ms 10 5000 0 0
expect_range "short: shortest lifetime (ns)" 10000000 400000000 \
	"$(q "$WORK/short.json" sum lifetime_ns_min live_10ms)"

# Bursts of 200000 allocations after 400 ms of sleep: every one recorded.
RUN_NAME=bursts mprof_run 120 "$WORK/bursts.trace" -q -- "$WORK/idle" bursts
expect_eq "bursts: exit status" 0 "$RUN_STATUS"
report_json "$WORK/bursts.json" "$WORK/bursts.trace"
expect_site "$WORK/bursts.json" burst_block 600000 - 0 0
finish
