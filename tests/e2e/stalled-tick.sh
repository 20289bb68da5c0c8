#!/bin/bash
# stalled-tick.sh - an exact-mode event after a pause is timed afresh even
# when the kernel's coarse clock stands still: a virtual machine's host can
# hold the tick that moves it for 20 ms and more (seen in CI: 590 of 83,145
# 10 ms sleeps saw it unmoved, by up to 24 ms), and a block freed 10 ms
# after its allocation got the allocation's stamp, a lifetime of 0.  Here a
# preloaded shim makes CLOCK_MONOTONIC_COARSE move in 60 ms steps for the
# program and the recorder (tests/progs/stalled_tick_shim.c).
# Program and facts: tests/progs/stalled_tick.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/stalled_tick" "$PROGS_DIR/stalled_tick.c"
build_c "$WORK/libstall.so" "$PROGS_DIR/stalled_tick_shim.c" -shared -fPIC -ldl

# the shim works: two readings 10 ms apart show the same coarse time
cat >"$WORK/probe.c" <<'PROG'
#include <stdio.h>
#include <time.h>
int main(void)
{
	struct timespec a, b, nap = { 0, 10000000 };
	int same = 0;
	for (int i = 0; i < 5; i++) {
		clock_gettime(CLOCK_MONOTONIC_COARSE, &a);
		nanosleep(&nap, NULL);
		clock_gettime(CLOCK_MONOTONIC_COARSE, &b);
		same += a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec;
	}
	printf("%d\n", same > 0);
	return 0;
}
PROG
build_c "$WORK/probe" "$WORK/probe.c"
expect_eq "the shim holds the coarse clock over a 10 ms sleep" 1 \
	"$(LD_PRELOAD="$WORK/libstall.so" "$WORK/probe")"

LD_PRELOAD="$WORK/libstall.so" mprof_run 120 "$WORK/t" -q -- "$WORK/stalled_tick"
expect_eq "exit status" 0 "$RUN_STATUS"
expect_eq "stdout" ok "$(cat "$RUN_OUT")"
report_json "$WORK/t.json" "$WORK/t"
expect_site "$WORK/t.json" live_10ms 10 5000 0 0
expect_range "shortest lifetime (ns)" 10000000 400000000 \
	"$(q "$WORK/t.json" sum lifetime_ns_min live_10ms)"
finish
