/*
 * 19-thousands-of-threads.c - hard case 19: 3000 short-lived threads, never
 * more than 200 alive at once (a sliding window: thread n is joined before
 * thread n + 200 starts), each with a 256 KiB stack.  Every thread makes two
 * malloc/free pairs and then, as its last heap call before it returns,
 * leaves one 64-byte block behind for main to count.
 *
 * Why profilers get this wrong: per-thread profiler state kept in a fixed
 * table overflows past its end once more threads than slots have existed
 * (Remotery#242: 256 slots); per-thread buffers of several MB that are
 * never given back exhaust memory in programs with thousands of threads
 * (micro-profiler#60, #73); and events a thread buffered are lost when the
 * thread exits before its buffer is flushed.
 *
 * Expected facts (tests/cases/19-thousands-of-threads.sh; "N / B" =
 * allocations / bytes, "leak" = blocks / bytes live at exit):
 *   1. exit status 0 within 15 s, stdout exactly
 *      "threads run: 3000, blocks left: 3000".
 *   2. left_behind     3000 x malloc(64), kept    3000 / 192000  leak 3000 / 192000
 *   3. worker_scratch  3000 x (malloc(48) + malloc(80)), both freed
 *                                                 6000 / 384000  leak 0 / 0
 *   4. the peak RSS of the profiled run (mprof and the program) stays
 *      below 200 MB.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define THREADS 3000
#define WINDOW 200
#define STACK_BYTES (256 * 1024)

static void *volatile left[THREADS];
static void *volatile sink;

__attribute__((noinline)) static void worker_scratch(int n)
{
	char *small = malloc(48), *big = malloc(80);

	if (small && big) {
		memset(small, n, 48);
		memset(big, n, 80);
	}
	sink = small;
	sink = big;
	free(big);
	free(small);
}

__attribute__((noinline)) static void *left_behind(void)
{
	return malloc(64);
}

static void *worker(void *arg)
{
	int n = (int)(long)arg;

	worker_scratch(n);
	left[n] = left_behind();
	return NULL;
}

int main(void)
{
	pthread_t window[WINDOW];
	pthread_attr_t attr;
	int started = 0, joined = 0, blocks = 0;

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, STACK_BYTES);
	for (int n = 0; n < THREADS; n++) {
		/* the slot of thread n - WINDOW: join it before reusing the slot */
		if (n >= WINDOW && pthread_join(window[n % WINDOW], NULL) == 0)
			joined++;
		if (pthread_create(&window[n % WINDOW], &attr, worker, (void *)(long)n) != 0) {
			fprintf(stderr, "pthread_create failed for thread %d\n", n);
			return 1;
		}
		started++;
	}
	for (int n = THREADS - WINDOW; n < THREADS; n++)
		if (pthread_join(window[n % WINDOW], NULL) == 0)
			joined++;
	pthread_attr_destroy(&attr);

	for (int n = 0; n < THREADS; n++)
		blocks += left[n] != NULL;
	printf("threads run: %d, blocks left: %d\n", joined, blocks);
	return started == THREADS && joined == THREADS ? 0 : 1;
}
