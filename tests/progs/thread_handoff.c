/*
 * thread_handoff.c - 4 threads in a ring: thread i allocates small blocks and
 * passes them through a bounded queue to thread i+1 (mod 4), which frees
 * them.  Every block is freed by another thread than the one that allocated
 * it, and the small queues make the allocator reuse the same addresses over
 * and over, so a profiler that does not order frees and allocations across
 * threads exactly sees frees of unknown blocks or blocks freed twice.
 *
 * Expected facts (tests/e2e/threads-handoff.sh):
 *   produce_block: 100000 allocations (25000 per thread, size 16 + k % 48
 *   for k = 0..24999: 987340 bytes per thread), 3949360 bytes in all;
 *   0 blocks / 0 bytes live at exit.
 *   The report has 0 unmatched frees.
 * stdout: "handed over: 100000, checksum ok\n"
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define THREADS 4
#define PER_THREAD 25000
#define QUEUE_SLOTS 16

struct queue {
	pthread_mutex_t lock;
	pthread_cond_t changed;
	unsigned char *slot[QUEUE_SLOTS];
	unsigned head, tail; /* head - tail = items queued */
};

static struct queue queues[THREADS];
static long handed[THREADS];
static int bad_blocks;

__attribute__((noinline)) static unsigned char *produce_block(int k)
{
	size_t bytes = 16 + (size_t)(k % 48);
	unsigned char *p = malloc(bytes);
	memset(p, (unsigned char)k, bytes);
	p[0] = (unsigned char)bytes;
	return p;
}

/* Returns NULL when nothing is queued. */
static unsigned char *queue_try_pop(struct queue *q)
{
	unsigned char *p = NULL;
	pthread_mutex_lock(&q->lock);
	if (q->head != q->tail) {
		p = q->slot[q->tail++ % QUEUE_SLOTS];
		pthread_cond_broadcast(&q->changed);
	}
	pthread_mutex_unlock(&q->lock);
	return p;
}

static void consume_block(unsigned char *p, long *count)
{
	if (p[0] < 16 || p[0] >= 64)
		__atomic_add_fetch(&bad_blocks, 1, __ATOMIC_RELAXED);
	free(p);
	++*count;
}

static void *ring_member(void *arg)
{
	int me = (int)(intptr_t)arg;
	struct queue *out = &queues[me];
	struct queue *in = &queues[(me + THREADS - 1) % THREADS];
	long received = 0;
	for (int k = 0; k < PER_THREAD; k++) {
		unsigned char *p;
		/* drain before pushing so that no ring of full queues can block */
		while ((p = queue_try_pop(in)) != NULL)
			consume_block(p, &received);
		unsigned char *b = produce_block(k);
		for (;;) {
			pthread_mutex_lock(&out->lock);
			int full = out->head - out->tail == QUEUE_SLOTS;
			if (!full) {
				out->slot[out->head++ % QUEUE_SLOTS] = b;
				pthread_cond_broadcast(&out->changed);
			}
			pthread_mutex_unlock(&out->lock);
			if (!full)
				break;
			while ((p = queue_try_pop(in)) != NULL)
				consume_block(p, &received);
			sched_yield();
		}
	}
	while (received < PER_THREAD) {
		unsigned char *p = queue_try_pop(in);
		if (p)
			consume_block(p, &received);
		else
			sched_yield();
	}
	handed[me] = received;
	return NULL;
}

int main(void)
{
	pthread_t t[THREADS];
	for (int i = 0; i < THREADS; i++) {
		pthread_mutex_init(&queues[i].lock, NULL);
		pthread_cond_init(&queues[i].changed, NULL);
	}
	for (int i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, ring_member, (void *)(intptr_t)i);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	long total = 0;
	for (int i = 0; i < THREADS; i++)
		total += handed[i];
	printf("handed over: %ld, checksum %s\n", total, bad_blocks ? "BAD" : "ok");
	return total == (long)THREADS * PER_THREAD && !bad_blocks ? 0 : 1;
}
