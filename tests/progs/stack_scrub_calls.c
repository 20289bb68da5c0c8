/*
 * stack_scrub_calls.c - count N: N allocations at N call sites (a
 * recursion 1 to N levels deep) in one thread (1 MiB stack), whose first
 * 64 KiB it touches first, as a program that ran a while has; each is a
 * stack capture followed by the deep scrub (preload/stack_scrub.h), whose
 * mincore calls the test counts.  Facts: stdout "sites N"; N blocks, all
 * freed; exit status 0.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nest_alloc.h"

static int sites;

/* Writes 64 KiB of stack below the caller, as deeper calls did. */
__attribute__((noinline)) static void stack_touch(void)
{
	volatile char deep[64 * 1024];

	memset((char *)deep, 1, sizeof(deep));
	__asm__ volatile("" ::"r"(deep) : "memory");
}

static void *worker(void *arg)
{
	(void)arg;
	stack_touch();
	for (int k = 1; k <= sites; k++)
		free(nest(k));
	printf("sites %d\n", sites);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_attr_t attr;
	pthread_t th;

	if (argc != 3 || strcmp(argv[1], "count") != 0 || (sites = atoi(argv[2])) < 1) {
		fprintf(stderr, "usage: stack_scrub_calls count N\n");
		return 2;
	}
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 1 << 20);
	if (pthread_create(&th, &attr, worker, NULL) != 0)
		return 1;
	pthread_join(th, NULL);
	return 0;
}
