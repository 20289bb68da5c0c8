/*
 * bench/free_loop.c - the cost of a free whose block is not in the cache:
 * usage free_loop N.  Allocates N blocks of 16 to 63 bytes, shuffles them,
 * and times their frees with CLOCK_THREAD_CPUTIME_ID; prints "ns/free X",
 * the best of 5 passes.  A free then waits for the block's header to come
 * from memory, and the processor overlaps those waits only as far as the
 * instructions on the way to the C library's free let it, so this loop
 * shows what a shim's free path costs where the pair loop of pair_ns.c,
 * always in the cache, does not.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "thread_clock.h"

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000000;
	void **blocks = malloc(n * sizeof(*blocks));
	uint64_t x = 88172645463325252ull; /* xorshift64 state */
	double best = 1e300;

	if (!n || !blocks)
		return 1;
	for (int pass = 0; pass < 5; pass++) {
		double t0, ns;

		for (size_t i = 0; i < n; i++)
			blocks[i] = malloc(16 + i % 48);
		for (size_t i = n - 1; i > 0; i--) {
			size_t j;
			void *b;

			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			j = x % (i + 1);
			b = blocks[i];
			blocks[i] = blocks[j];
			blocks[j] = b;
		}
		t0 = now_ns();
		for (size_t i = 0; i < n; i++)
			free(blocks[i]);
		ns = (now_ns() - t0) / (double)n;
		if (ns < best)
			best = ns;
	}
	free(blocks);
	printf("ns/free %.2f\n", best);
	return 0;
}
