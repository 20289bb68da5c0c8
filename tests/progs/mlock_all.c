/*
 * tests/progs/mlock_all.c - a program that locks all its memory at its
 * start, as real-time programs do (cyclictest, jackd, chronyd -m), then
 * allocates on threads started after it (tests/e2e/mlock-all.sh).
 *
 * Usage: mlock_all HOW
 *   HOW  libc     mlockall(MCL_CURRENT | MCL_FUTURE)
 *        syscall  syscall(SYS_mlockall, MCL_CURRENT | MCL_FUTURE)
 * Prints "mlockall: failed" and exits 77 when the kernel refuses (no
 * CAP_IPC_LOCK and a small RLIMIT_MEMLOCK).  Otherwise prints whether the
 * resident memory right after the call (VmRSS) stays below 64 MiB
 * (natively about 2 MiB: every page of the program is faulted in), then 4
 * threads (on stacks of 256 KiB, locked as mapped) each make
 * BLOCKS_PER_THREAD blocks of 48 bytes in thread_blocks and free them, and
 * the program exits with status 3.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "status_kib.h"

#define THREADS 4
#define BLOCKS_PER_THREAD 1000

/* called through a volatile pointer: the compiler keeps every call */
static void *(*volatile alloc_fn)(size_t) = malloc;

static void *thread_blocks(void *arg)
{
	void *blocks[BLOCKS_PER_THREAD];

	(void)arg;
	for (int i = 0; i < BLOCKS_PER_THREAD; i++)
		blocks[i] = alloc_fn(48);
	for (int i = 0; i < BLOCKS_PER_THREAD; i++)
		free(blocks[i]);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t threads[THREADS];
	pthread_attr_t attr;
	long rss;
	int rc;

	if (argc != 2)
		return 2;
	if (strcmp(argv[1], "syscall") == 0)
		rc = (int)syscall(SYS_mlockall, MCL_CURRENT | MCL_FUTURE);
	else
		rc = mlockall(MCL_CURRENT | MCL_FUTURE);
	if (rc != 0) {
		printf("mlockall: failed\n");
		return 77;
	}
	rss = status_kib("VmRSS:");
	printf("mlockall: done\nresident below 64 MiB: %s\n",
	       rss >= 0 && rss < 64 * 1024 ? "yes" : "no");
	fflush(stdout);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 256 << 10);
	for (int i = 0; i < THREADS; i++)
		if (pthread_create(&threads[i], &attr, thread_blocks, NULL) != 0)
			return 1;
	for (int i = 0; i < THREADS; i++)
		pthread_join(threads[i], NULL);
	printf("threads: %d blocks\n", THREADS * BLOCKS_PER_THREAD);
	return 3;
}
