/*
 * thread_crowd.c - 300 threads alive at once, each making 1000 malloc/free
 * pairs of 32..95 B, then all joined (tests/e2e/recorder-memory.sh).
 * With the argument "churn [N]", N threads (default 2000) instead, each
 * joined before the next starts (the recorder gives back each one's memory
 * at its end).
 *
 * Facts: 300000 allocations (churn: 1000 N) and frees from work(), nothing leaked by it;
 * each thread's stack has at least one page resident (the program's, not
 * the recorder's).  stdout: "thread_crowd done".
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define THREADS 300

static pthread_barrier_t all_alive;

static void *work(void *arg)
{
	(void)arg;
	for (int i = 0; i < 1000; i++) {
		char *volatile p = malloc(32 + i % 64);

		p[0] = 1;
		free(p);
	}
	pthread_barrier_wait(&all_alive);
	return NULL;
}

/* n threads one after the other. */
static int churn(int n)
{
	pthread_barrier_init(&all_alive, NULL, 1);
	for (int i = 0; i < n; i++) {
		pthread_t t;

		if (pthread_create(&t, NULL, work, NULL) != 0)
			return 1;
		pthread_join(t, NULL);
	}
	puts("thread_crowd done");
	return 0;
}

int main(int argc, char **argv)
{
	pthread_t t[THREADS];

	if (argc > 1 && strcmp(argv[1], "churn") == 0)
		return churn(argc > 2 ? atoi(argv[2]) : 2000);
	pthread_barrier_init(&all_alive, NULL, THREADS);
	for (int i = 0; i < THREADS; i++)
		if (pthread_create(&t[i], NULL, work, NULL) != 0)
			return 1;
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	puts("thread_crowd done");
	return 0;
}
