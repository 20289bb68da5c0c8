/*
 * tests/progs/tight_limit.c - programs that need nearly all of their
 * RLIMIT_AS (tests/e2e/tight-limit.sh).
 *
 * Usage: tight_limit vm | threads N | fill
 *   vm       prints "vm: K" (VmSize of this process in KiB, no thread made)
 *   threads  makes N threads on stacks of 4 MiB; once all are made, each
 *            makes one block of 1000 bytes in thread_alloc (the C library
 *            tries to give it an arena of 64 MiB of address space first),
 *            writes it and waits for the others; prints "threads: M of N"
 *            and "blocks: B of M" (blocks malloc gave).  Once all threads
 *            are made, so the arenas take none of the stacks' room.
 *   fill     mallocs blocks of 1 MiB (then halves down to 4 KiB) until
 *            malloc fails, never freeing; prints "filled: MIB"
 * Exit status 0 when every thread and block was made (fill: always 0).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "status_kib.h"

#define MAX_THREADS 1024
#define STACK_BYTES (4u << 20)

static pthread_barrier_t all_made, all_done;
static _Atomic int blocks;

__attribute__((noinline)) static char *thread_alloc(void)
{
	return malloc(1000);
}

static void *thread_main(void *arg)
{
	char *p;

	(void)arg;
	pthread_barrier_wait(&all_made);
	p = thread_alloc();
	if (p) {
		memset(p, 1, 1000);
		blocks++;
	}
	pthread_barrier_wait(&all_done);
	free(p);
	return NULL;
}

static int threads(int n)
{
	pthread_t t[MAX_THREADS];
	pthread_attr_t attr;
	int made = 0;

	if (n < 1 || n > MAX_THREADS)
		return 2;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, STACK_BYTES);
	/* the main thread counts too, so a failed create still ends the wait */
	pthread_barrier_init(&all_made, NULL, (unsigned)n + 1);
	pthread_barrier_init(&all_done, NULL, (unsigned)n + 1);
	while (made < n && pthread_create(&t[made], &attr, thread_main, NULL) == 0)
		made++;
	if (made < n) {
		/* the barrier would wait for threads never made: end unjoined */
		printf("threads: %d of %d\n", made, n);
		fflush(stdout);
		_exit(1);
	}
	pthread_barrier_wait(&all_made);
	pthread_barrier_wait(&all_done);
	for (int i = 0; i < made; i++)
		pthread_join(t[i], NULL);
	printf("threads: %d of %d\nblocks: %d of %d\n", made, n, (int)blocks, made);
	return blocks == made ? 0 : 1;
}

static int fill(void)
{
	unsigned long long got = 0;
	size_t size = 1u << 20;

	while (size >= 4096) {
		char *p = malloc(size);

		if (p) {
			p[0] = 1;
			got += size;
		} else {
			size /= 2;
		}
	}
	printf("filled: %llu\n", got >> 20);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "vm") == 0) {
		printf("vm: %ld\n", status_kib("VmSize:"));
		return 0;
	}
	if (argc == 3 && strcmp(argv[1], "threads") == 0)
		return threads(atoi(argv[2]));
	if (argc == 2 && strcmp(argv[1], "fill") == 0)
		return fill();
	fprintf(stderr, "usage: tight_limit vm | threads N | fill\n");
	return 2;
}
