/*
 * bench/slotless_threads.c - more threads alive at once than the recorder
 * has thread slots (4096): usage slotless_threads THREADS WAVES ALLOCS.
 * THREADS threads start and meet at a barrier; in each of WAVES waves
 * every thread makes ALLOCS malloc(48) calls, keeps the blocks until all
 * threads have made theirs (a barrier) and frees them.  Threads past the
 * slots go unrecorded, so this is the run where a thread without a slot
 * allocates most.  Prints the thread count and the allocations made.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int threads = 5000, waves = 3, allocs = 100;
static pthread_barrier_t barrier;

static void *worker(void *arg)
{
	void **keep = arg;

	pthread_barrier_wait(&barrier);
	for (int w = 0; w < waves; w++) {
		for (int i = 0; i < allocs; i++) {
			keep[i] = malloc(48);
			if (!keep[i])
				abort();
			memset(keep[i], 1, 48);
		}
		pthread_barrier_wait(&barrier);
		for (int i = 0; i < allocs; i++)
			free(keep[i]);
		pthread_barrier_wait(&barrier);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_attr_t attr;
	pthread_t *tids;
	void **blocks;

	if (argc > 1)
		threads = atoi(argv[1]);
	if (argc > 2)
		waves = atoi(argv[2]);
	if (argc > 3)
		allocs = atoi(argv[3]);
	if (threads < 1 || waves < 0 || allocs < 1)
		return 2;
	tids = calloc((size_t)threads, sizeof(*tids));
	blocks = calloc((size_t)threads * (size_t)allocs, sizeof(*blocks));
	if (!tids || !blocks)
		return 1;
	pthread_barrier_init(&barrier, NULL, (unsigned)threads);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 << 10);
	for (int i = 0; i < threads; i++)
		if (pthread_create(&tids[i], &attr, worker, blocks + (size_t)i * allocs) != 0) {
			fprintf(stderr, "slotless_threads: pthread_create failed at %d\n", i);
			return 1;
		}
	for (int i = 0; i < threads; i++)
		pthread_join(tids[i], NULL);
	printf("threads %d allocations %ld\n", threads, (long)threads * waves * allocs);
	free(blocks);
	free(tids);
	return 0;
}
