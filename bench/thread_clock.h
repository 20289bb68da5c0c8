/*
 * bench/thread_clock.h - the calling thread's CPU time in ns
 * (CLOCK_THREAD_CPUTIME_ID), for the bench's per-operation loops
 * (pair_ns.c, free_loop.c, realloc_loop.c): time the thread spent, not
 * what other jobs on a shared host took from it.
 */
#ifndef MPROF_BENCH_THREAD_CLOCK_H
#define MPROF_BENCH_THREAD_CLOCK_H

#include <time.h>

static inline double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

#endif
