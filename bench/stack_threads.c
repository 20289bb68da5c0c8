/*
 * bench/stack_threads.c - a big multi-threaded trace for the analyzer:
 * usage stack_threads THREADS ALLOCATIONS.  Each thread makes its share of
 * ALLOCATIONS through a recursion 7 deep over four functions, the path
 * taken from the allocation's number, so 16,384 distinct call stacks a
 * thread entry (the threads share them); each allocation replaces the
 * oldest of 1,024 live blocks of its thread.  Prints a checksum.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEPTH 7
#define KEPT 1024

static long per_thread;

struct worker {
	void *kept[KEPT];
	unsigned long sum;
};

static void step(struct worker *w, unsigned long i, unsigned long path, int depth);

/* The empty asm keeps each call from being a tail call: a frame each. */
static __attribute__((noinline)) void via_a(struct worker *w, unsigned long i, unsigned long path, int d)
{ step(w, i, path, d); __asm__ volatile(""); }
static __attribute__((noinline)) void via_b(struct worker *w, unsigned long i, unsigned long path, int d)
{ step(w, i, path, d); __asm__ volatile(""); }
static __attribute__((noinline)) void via_c(struct worker *w, unsigned long i, unsigned long path, int d)
{ step(w, i, path, d); __asm__ volatile(""); }
static __attribute__((noinline)) void via_d(struct worker *w, unsigned long i, unsigned long path, int d)
{ step(w, i, path, d); __asm__ volatile(""); }

static __attribute__((noinline)) void leaf(struct worker *w, unsigned long i)
{
	size_t n = 16 + (i * 2654435761u) % 200;
	void **slot = &w->kept[i % KEPT];
	char *p;

	free(*slot);
	p = malloc(n);
	if (p) {
		p[0] = (char)i;
		w->sum += (unsigned char)p[0];
	}
	*slot = p;
}

static __attribute__((noinline)) void step(struct worker *w, unsigned long i, unsigned long path, int depth)
{
	if (depth == 0) {
		leaf(w, i);
		return;
	}
	switch (path & 3) {
	case 0: via_a(w, i, path >> 2, depth - 1); break;
	case 1: via_b(w, i, path >> 2, depth - 1); break;
	case 2: via_c(w, i, path >> 2, depth - 1); break;
	default: via_d(w, i, path >> 2, depth - 1); break;
	}
	__asm__ volatile("");
}

static void *work(void *arg)
{
	struct worker *w = arg;

	for (long i = 0; i < per_thread; i++)
		step(w, (unsigned long)i, (unsigned long)i * 40503u, DEPTH);
	for (int k = 0; k < KEPT; k++)
		free(w->kept[k]);
	return NULL;
}

int main(int argc, char **argv)
{
	int threads = argc > 1 ? atoi(argv[1]) : 4;
	long total = argc > 2 ? atol(argv[2]) : 10000000;
	pthread_t *tid;
	struct worker *w;
	unsigned long sum = 0;

	if (threads < 1 || threads > 1024 || total < 0) {
		fprintf(stderr, "usage: stack_threads THREADS ALLOCATIONS\n");
		return 2;
	}
	per_thread = total / threads;
	tid = calloc((size_t)threads, sizeof(*tid));
	w = calloc((size_t)threads, sizeof(*w));
	if (!tid || !w)
		return 1;
	for (int t = 0; t < threads; t++)
		if (pthread_create(&tid[t], NULL, work, &w[t]) != 0)
			return 1;
	for (int t = 0; t < threads; t++) {
		pthread_join(tid[t], NULL);
		sum += w[t].sum;
	}
	printf("checksum %lu\n", sum);
	free(w);
	free(tid);
	return 0;
}
