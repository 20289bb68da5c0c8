/*
 * tests/progs/thread_spawner.c - start_workers() starts 3 threads, all alive
 * at once, each allocating 5 blocks of 777 bytes in worker() and freeing
 * them; the C library allocates each new thread's TLS vector inside
 * pthread_create, which the recorder wraps.  Facts (profiler-frames.sh):
 * the sites of pthread_create's own allocations go on from glibc's
 * pthread_create to start_workers, with no frame of the recorder between;
 * worker: 15 allocations, 11655 bytes.
 */
#include <pthread.h>
#include <stdlib.h>

static pthread_barrier_t all_started;

static void *worker(void *arg)
{
	void *p[5];

	(void)arg;
	pthread_barrier_wait(&all_started);
	for (int i = 0; i < 5; i++)
		p[i] = malloc(777);
	for (int i = 0; i < 5; i++) {
		__asm__ volatile("" : : "r"(p[i]) : "memory");
		free(p[i]);
	}
	return NULL;
}

__attribute__((noinline)) static int start_workers(pthread_t *t, int n)
{
	for (int i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, worker, NULL) != 0)
			return -1;
	return 0;
}

int main(void)
{
	pthread_t t[3];

	pthread_barrier_init(&all_started, NULL, 3);
	if (start_workers(t, 3) != 0)
		return 1;
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	return 0;
}
