/*
 * sparse_lifetimes.c - a program that allocates little: two blocks from
 * keep_block, one freed after 1.5 s, the next after 0.2 s, with no other
 * allocator call between.  Facts: keep_block's lifetimes are 0.2 s and
 * 1.5 s (plus scheduling delay), not the 0 ns that time stamps taken every
 * 4096 events alone gave.
 */
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

__attribute__((noinline)) static void *keep_block(void)
{
	return malloc(100);
}

static void pause_ms(long ms)
{
	struct timespec nap = { ms / 1000, (ms % 1000) * 1000000 };

	nanosleep(&nap, NULL);
}

int main(void)
{
	static const long lives_ms[] = { 1500, 200 };

	for (int i = 0; i < 2; i++) {
		void *p = keep_block();

		pause_ms(lives_ms[i]);
		free(p);
	}
	return write(1, "ok\n", 3) == 3 ? 0 : 1;
}
