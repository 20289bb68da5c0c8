/*
 * thread_stacks.c - THREADS threads each allocate from one call stack, then
 * from STACKS more distinct ones (a recursion 1 to STACKS levels deep:
 * each depth is a call site at a stack position of its own), as a server's
 * threads do at their start; main reads its resident memory (VmRSS) before
 * it starts them and after each step, every thread waiting at a barrier,
 * and prints the second step's growth per thread in KiB, then the growth
 * per thread from before the threads to the end of the second step.
 * Facts (THREADS 64, STACKS 24): 64 * 25 allocations of 16 bytes from the
 * threads, all freed before exit; stdout "threads 64 stacks 24", then
 * "growth_per_thread_kib N", then "total_per_thread_kib N".
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nest_alloc.h"

#define THREADS 64
#define STACKS 24

static pthread_barrier_t step_done, step_next;
static void *blocks[THREADS][STACKS + 1];

static void *worker(void *arg)
{
	void **mine = arg;

	mine[0] = nest(0);
	pthread_barrier_wait(&step_done);
	pthread_barrier_wait(&step_next);
	for (int k = 1; k <= STACKS; k++)
		mine[k] = nest(k);
	pthread_barrier_wait(&step_done);
	pthread_barrier_wait(&step_next);
	for (int k = 0; k <= STACKS; k++)
		free(mine[k]);
	return NULL;
}

/* VmRSS of this process in KiB, -1 when unreadable. */
static long rss_kib(void)
{
	char line[256];
	long kib = -1;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof line, f))
		if (strncmp(line, "VmRSS:", 6) == 0)
			kib = strtol(line + 6, NULL, 10);
	fclose(f);
	return kib;
}

int main(void)
{
	pthread_t threads[THREADS];
	long start, before, after;

	start = rss_kib();
	pthread_barrier_init(&step_done, NULL, THREADS + 1);
	pthread_barrier_init(&step_next, NULL, THREADS + 1);
	for (int i = 0; i < THREADS; i++)
		if (pthread_create(&threads[i], NULL, worker, blocks[i]) != 0)
			return 1;
	pthread_barrier_wait(&step_done);
	before = rss_kib();
	pthread_barrier_wait(&step_next);
	pthread_barrier_wait(&step_done);
	after = rss_kib();
	pthread_barrier_wait(&step_next);
	for (int i = 0; i < THREADS; i++)
		pthread_join(threads[i], NULL);
	if (start < 0 || before < 0 || after < 0)
		return 2;
	printf("threads %d stacks %d\n", THREADS, STACKS);
	printf("growth_per_thread_kib %ld\n", (after - before) / THREADS);
	printf("total_per_thread_kib %ld\n", (after - start) / THREADS);
	return 0;
}
