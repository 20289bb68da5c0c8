/*
 * crowd_wait.c - argv[1] threads alive at once, many more than the
 * recorder's thread slots: each makes 8 allocations of 48 B, waits at a
 * barrier until all have made theirs, frees them and ends.  When the
 * threads that had a slot end, the others (each free a claim) wait for
 * their slots to come back.
 *
 * Facts: argv[1] * 8 allocations of 48 B at crowd_alloc, all freed;
 * stdout "crowd_wait N done"; exit status 0 (1 when a thread cannot start).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_barrier_t crowd_barrier;

static __attribute__((noinline)) void *crowd_alloc(void)
{
	return malloc(48);
}

static void *crowd_thread(void *arg)
{
	void *blocks[8];

	(void)arg;
	for (int i = 0; i < 8; i++)
		blocks[i] = crowd_alloc();
	pthread_barrier_wait(&crowd_barrier);
	for (int i = 0; i < 8; i++)
		free(blocks[i]);
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 0;
	pthread_t *threads;
	pthread_attr_t attr;

	if (n < 1)
		return 2;
	threads = malloc(sizeof(*threads) * (size_t)n);
	if (!threads || pthread_attr_init(&attr) != 0 ||
	    pthread_attr_setstacksize(&attr, 64 << 10) != 0 ||
	    pthread_barrier_init(&crowd_barrier, NULL, (unsigned)n + 1) != 0)
		return 1;
	for (int i = 0; i < n; i++)
		if (pthread_create(&threads[i], &attr, crowd_thread, NULL) != 0)
			return 1;
	pthread_barrier_wait(&crowd_barrier);
	for (int i = 0; i < n; i++)
		pthread_join(threads[i], NULL);
	free(threads);
	printf("crowd_wait %d done\n", n);
	return 0;
}
