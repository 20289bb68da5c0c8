/*
 * tests/progs/lowered_limit.c - a program that lowers its own RLIMIT_AS
 * after it started, then allocates (tests/e2e/lowered-limit.sh).
 *
 * Usage: lowered_limit set|prlimit|none LIMIT_MIB
 *   set      setrlimit(RLIMIT_AS) to LIMIT_MIB (the hard limit kept)
 *   prlimit  the same through prlimit(0, ...), which also returns the old
 *   none     no call (the limit was set before, e.g. by `ulimit -v`)
 * Then: one setrlimit that must fail (soft above hard: EINVAL), 100
 * blocks of 1 MiB made and written in alloc_chunks, 4 threads each making
 * 10 blocks of 64 KiB in thread_blocks after the limit (in the main arena,
 * on stacks of 256 KiB: about 105 MiB of address space in all), and one
 * malloc of 2 x LIMIT_MIB, which fails under the limit with or without a
 * profiler.
 *
 * Facts (stdout, the same under mprof as without it; exit status 0):
 *   set: 0              (set and prlimit)
 *   old: unlimited      (prlimit, when started without a limit)
 *   bad: -1 EINVAL
 *   limit: LIMIT_MIB MiB
 *   chunks: 100 of 100
 *   threads: 40 of 40
 *   too big: failed
 * Allocations recorded: 100 x 1048576 B in alloc_chunks (all freed),
 * 40 x 65536 B in thread_blocks (all freed).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "limit_blocks.h"

#define CHUNKS 100

int main(int argc, char **argv)
{
	static void *chunks[CHUNKS];
	pthread_attr_t attr;
	pthread_t threads[THREADS];
	int made[THREADS] = { 0 }, started[THREADS] = { 0 }, threads_made = 0, rc = 0;
	struct rlimit lim, bad, old;
	unsigned long limit_mib;
	void *big;

	if (argc != 3)
		return 2;
	/* What the threads need, with or without a profiler, is the same every
	 * run: no arena of their own (64 MiB of address space each, made or
	 * not as they race) and stacks of 256 KiB. */
	mallopt(M_ARENA_MAX, 1);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 256u << 10);
	limit_mib = strtoul(argv[2], NULL, 10);
	if (getrlimit(RLIMIT_AS, &lim) != 0)
		return 2;
	lim.rlim_cur = (rlim_t)limit_mib << 20;
	if (strcmp(argv[1], "set") == 0)
		rc = setrlimit(RLIMIT_AS, &lim);
	else if (strcmp(argv[1], "prlimit") == 0)
		rc = prlimit(0, RLIMIT_AS, &lim, &old);
	if (strcmp(argv[1], "none") != 0)
		printf("set: %d\n", rc);
	if (strcmp(argv[1], "prlimit") == 0)
		printf("old: %s\n", old.rlim_cur == RLIM_INFINITY ? "unlimited" : "limited");
	bad = lim;
	bad.rlim_max = lim.rlim_cur - 1;
	bad.rlim_cur = lim.rlim_cur;
	errno = 0;
	rc = setrlimit(RLIMIT_AS, &bad);
	printf("bad: %d %s\n", rc, errno == EINVAL ? "EINVAL" : strerror(errno));
	getrlimit(RLIMIT_AS, &lim);
	printf("limit: %lu MiB\n", (unsigned long)(lim.rlim_cur >> 20));

	printf("chunks: %d of %d\n", alloc_chunks(chunks, CHUNKS), CHUNKS);
	for (int i = 0; i < THREADS; i++)
		started[i] = pthread_create(&threads[i], &attr, thread_main, &made[i]) == 0;
	for (int i = 0; i < THREADS; i++)
		if (started[i] && pthread_join(threads[i], NULL) == 0)
			threads_made += made[i];
	printf("threads: %d of %d\n", threads_made, THREADS * THREAD_BLOCKS);
	big = malloc((size_t)limit_mib << 21);
	printf("too big: %s\n", big ? "made" : "failed");
	free(big);
	for (int i = 0; i < CHUNKS; i++)
		free(chunks[i]);
	return 0;
}
