/*
 * bench/pair_ns.c - the cost of one malloc+free pair, timed inside the
 * program: usage pair_ns N SIZE [stop|start].  Times N pairs of
 * malloc(SIZE) and free with CLOCK_THREAD_CPUTIME_ID after 10^5 pairs of
 * warm-up and prints "ns/pair X".  With "stop" it calls mprof_stop() first
 * (mprof.h), so a run that started recording measures recording stopped in
 * log mode; with "start", mprof_start(MPROF_RATE_EVERY), so a --paused run
 * measures exact recording in set mode.
 */
#include <mprof.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "thread_clock.h"

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 10000000;
	size_t size = argc > 2 ? strtoul(argv[2], NULL, 10) : 64;
	double t0;

	if (argc > 3 && strcmp(argv[3], "stop") == 0)
		mprof_stop();
	if (argc > 3 && strcmp(argv[3], "start") == 0)
		mprof_start(MPROF_RATE_EVERY);
	for (unsigned long i = 0; i < 100000; i++) {
		void *volatile p = malloc(size);

		free(p);
	}
	t0 = now_ns();
	for (unsigned long i = 0; i < n; i++) {
		void *volatile p = malloc(size);

		free(p);
	}
	printf("ns/pair %.2f\n", (now_ns() - t0) / (double)n);
	return 0;
}
