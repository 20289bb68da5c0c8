/*
 * stalled_tick.c - ten 500-byte blocks from live_10ms, each freed 10 ms
 * after its allocation with no allocator call between, 100 ms apart; prints
 * "ok".  Under tests/progs/stalled_tick_shim.c every lifetime must still
 * measure 10 ms or more (tests/e2e/stalled-tick.sh).
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static void pause_ms(long ms)
{
	struct timespec nap = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&nap, NULL);
}

__attribute__((noinline)) static void *live_10ms(void)
{
	return malloc(500);
}

int main(void)
{
	for (int i = 0; i < 10; i++) {
		void *volatile p = live_10ms();

		pause_ms(10);
		free(p);
		pause_ms(100);
	}
	puts("ok");
	return 0;
}
