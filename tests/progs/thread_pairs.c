/*
 * tests/progs/thread_pairs.c - a program whose first allocations come
 * after it starts threads: 4 threads, each making 1000 malloc/free pairs
 * of 64 bytes, one after the other; main then leaks one block of 100
 * bytes.  Used under Valgrind's memcheck (tests/e2e/under-valgrind.sh),
 * whose heap summary must read the same with mprof as without: the
 * recorder loaded libunwind at the first pthread_create, and the loader's
 * blocks went through the tool's malloc.
 *
 * Facts: stdout "thread_pairs done"; exit status 0.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define THREADS 4
#define PAIRS 1000

/* called through a volatile pointer: the compiler keeps every call */
static void *(*volatile alloc_fn)(size_t) = malloc;

static void *thread_pairs(void *arg)
{
	(void)arg;
	for (int i = 0; i < PAIRS; i++)
		free(alloc_fn(64));
	return NULL;
}

int main(void)
{
	pthread_t thread;
	void *kept;

	for (int i = 0; i < THREADS; i++) {
		if (pthread_create(&thread, NULL, thread_pairs, NULL) != 0 ||
		    pthread_join(thread, NULL) != 0)
			return 1;
	}
	kept = alloc_fn(100);
	printf("thread_pairs done\n");
	return kept ? 0 : 1;
}
