/*
 * slotless_threads.c - more threads alive at once than the recorder has
 * thread slots, for tests/e2e/slotless-threads.sh (run with 42 slots under
 * an RLIMIT_AS): those without a slot go unrecorded and are counted so,
 * and pick up a slot once other threads end.
 *
 * Expected facts: 80 threads, alive together (a barrier), each make
 * crowd_alloc: 50 x malloc(24), freed after a second barrier (4000 in all,
 * each recorded or counted as unrecorded, and so their frees), and meet
 * at a third.  Then threads 0-59 end and are
 * joined; threads 60-79, which were alive all along, each make
 * later_alloc: 50 x malloc(40), freed (1000, all recorded: slots came back).
 * stdout: "slotless_threads done\n"
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define THREADS 80
#define STAYING 20
#define ALLOCS 50

static pthread_barrier_t crowd, later;

__attribute__((noinline)) static void *crowd_alloc(void)
{
	void *p = malloc(24);

	if (!p)
		abort();
	memset(p, 1, 24);
	return p;
}

__attribute__((noinline)) static void *later_alloc(void)
{
	void *p = malloc(40);

	if (!p)
		abort();
	memset(p, 2, 40);
	return p;
}

static void *worker(void *arg)
{
	int staying = (int)(size_t)arg >= THREADS - STAYING;
	void *keep[ALLOCS];

	pthread_barrier_wait(&crowd);
	for (int i = 0; i < ALLOCS; i++)
		keep[i] = crowd_alloc();
	pthread_barrier_wait(&crowd);
	for (int i = 0; i < ALLOCS; i++)
		free(keep[i]);
	/* no thread ends (releasing its slot) before all have freed: a thread
	 * that got a slot in between would record frees of unrecorded blocks */
	pthread_barrier_wait(&crowd);
	if (!staying)
		return NULL;
	pthread_barrier_wait(&later);
	for (int i = 0; i < ALLOCS; i++)
		keep[i] = later_alloc();
	for (int i = 0; i < ALLOCS; i++)
		free(keep[i]);
	return NULL;
}

int main(void)
{
	pthread_t tids[THREADS];
	pthread_attr_t attr;

	/* small stacks: 80 of the default 8 MiB do not fit the limit */
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 256 << 10);
	pthread_barrier_init(&crowd, NULL, THREADS);
	pthread_barrier_init(&later, NULL, STAYING + 1);
	for (int i = 0; i < THREADS; i++)
		if (pthread_create(&tids[i], &attr, worker, (void *)(size_t)i) != 0)
			return 1;
	for (int i = 0; i < THREADS - STAYING; i++)
		pthread_join(tids[i], NULL);
	pthread_barrier_wait(&later);
	for (int i = THREADS - STAYING; i < THREADS; i++)
		pthread_join(tids[i], NULL);
	puts("slotless_threads done");
	return 0;
}
