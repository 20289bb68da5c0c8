/*
 * bench/burst_threads.c - many threads allocating at once: usage
 * burst_threads THREADS ROUNDS BURST.  Each round every thread meets the
 * others at a barrier, then makes BURST allocations of 16 to 215 bytes
 * through two call sites, each replacing one of 256 live blocks of its own
 * (freed).  With more threads than processors their rings fill faster than
 * the launcher can read them, so this is the run where waiting for ring
 * room costs most.  Prints the thread count and a checksum.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int threads = 32, rounds = 20, burst = 3000;
static pthread_barrier_t barrier;

static __attribute__((noinline)) void *alloc_here(size_t n)
{
	void *p = malloc(n);

	if (p)
		memset(p, 1, n < 64 ? n : 64);
	return p;
}

static __attribute__((noinline)) void *alloc_there(size_t n)
{
	return alloc_here(n + 8);
}

static void *worker(void *arg)
{
	unsigned s = (unsigned)(size_t)arg * 2654435761u + 1;
	void **keep = calloc(256, sizeof(*keep));
	long sum = 0;

	if (!keep)
		abort();
	for (int r = 0; r < rounds; r++) {
		pthread_barrier_wait(&barrier);
		for (int i = 0; i < burst; i++) {
			size_t n;
			void *p;
			int k;

			s = s * 1103515245u + 12345u;
			n = 16 + (s >> 16) % 200;
			p = (s & 1) ? alloc_here(n) : alloc_there(n);
			k = (s >> 8) & 255;
			if (keep[k]) {
				sum += ((char *)keep[k])[0];
				free(keep[k]);
			}
			keep[k] = p;
		}
	}
	for (int k = 0; k < 256; k++)
		free(keep[k]);
	free(keep);
	return (void *)sum;
}

int main(int argc, char **argv)
{
	pthread_t *tids;
	long total = 0;

	if (argc > 1)
		threads = atoi(argv[1]);
	if (argc > 2)
		rounds = atoi(argv[2]);
	if (argc > 3)
		burst = atoi(argv[3]);
	if (threads < 1 || rounds < 1 || burst < 1)
		return 2;
	tids = calloc((size_t)threads, sizeof(*tids));
	if (!tids || pthread_barrier_init(&barrier, NULL, (unsigned)threads) != 0)
		return 1;
	for (int i = 0; i < threads; i++)
		if (pthread_create(&tids[i], NULL, worker, (void *)(size_t)i) != 0)
			return 1;
	for (int i = 0; i < threads; i++) {
		void *v;

		pthread_join(tids[i], &v);
		total += (long)v;
	}
	printf("threads %d checksum %ld\n", threads, total);
	free(tids);
	return 0;
}
