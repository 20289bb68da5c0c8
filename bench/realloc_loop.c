/*
 * bench/realloc_loop.c - the cost of a realloc: usage realloc_loop N.
 * Resizes 64 blocks in turn between 16 and 143 bytes, N times in all, and
 * times the calls with CLOCK_THREAD_CPUTIME_ID; prints "ns/realloc X", the
 * best of 5 passes.  Most calls resize in place, so the loop shows what a
 * shim's realloc path adds to the C library's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "thread_clock.h"

#define BLOCKS 64

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000000;
	void *blocks[BLOCKS];
	double best = 1e300;

	if (!n)
		return 1;
	for (int i = 0; i < BLOCKS; i++)
		if (!(blocks[i] = malloc(16)))
			return 1;
	for (int pass = 0; pass < 5; pass++) {
		double t0 = now_ns(), ns;

		for (size_t i = 0; i < n; i++) {
			void **b = &blocks[i % BLOCKS];
			void *p = realloc(*b, 16 + (i * 7) % 128);

			if (!p)
				return 1;
			*b = p;
		}
		ns = (now_ns() - t0) / (double)n;
		if (ns < best)
			best = ns;
	}
	for (int i = 0; i < BLOCKS; i++)
		free(blocks[i]);
	printf("ns/realloc %.2f\n", best);
	return 0;
}
