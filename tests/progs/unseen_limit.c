/*
 * tests/progs/unseen_limit.c - a program whose RLIMIT_AS is lowered where
 * no setrlimit or prlimit wrapper sees it, then allocates most of the new
 * limit (tests/e2e/unseen-limit.sh).
 *
 * Usage: unseen_limit HOW LIMIT_MIB FIRST [PIDFILE]
 *   HOW   syscall-setrlimit  syscall(SYS_setrlimit, RLIMIT_AS, ...)
 *         syscall-prlimit    syscall(SYS_prlimit64, 0, RLIMIT_AS, ...)
 *         instruction        the setrlimit system call made by a syscall
 *                            instruction of the program's own, as Go's
 *                            runtime makes its system calls (x86_64)
 *         outside            none: writes its pid to PIDFILE and waits
 *                            for a line on stdin, meanwhile another
 *                            process lowers the limit (prlimit --pid)
 *         outside-fork       as outside, then forks: the child does the
 *                            rest, the parent waits for it and exits with
 *                            its status
 *   LIMIT_MIB  the soft limit to set (the hard one is kept)
 *   FIRST the first allocation after the lowering, one block of 1 MiB in
 *         first_block: malloc, calloc, realloc (of NULL), realloc-grow (a
 *         block of 16 bytes made before the lowering, grown), posix_memalign,
 *         aligned_alloc, memalign, valloc or pvalloc; or no allocation but
 *         mmap (1 MiB of anonymous memory mapped, written, unmapped), or
 *         thread (a thread started on a stack of 256 KiB and joined: the
 *         C library maps the stack with its internal mmap)
 * Then CHUNKS_PER_LIMIT_MIB x LIMIT_MIB blocks of 1 MiB in alloc_chunks,
 * written and kept, 4 threads each making 10 blocks of 64 KiB in
 * thread_blocks (in the main arena, on stacks of 256 KiB), and one malloc
 * of 2 x LIMIT_MIB, which fails under the limit with or without a profiler.
 *
 * Facts (stdout, the same under mprof as without it; exit status 0):
 *   set: 0              (not with outside, outside-fork)
 *   limit: LIMIT_MIB MiB
 *   first: made
 *   chunks: N of N      (N = 3/4 of LIMIT_MIB)
 *   threads: 40 of 40
 *   too big: failed
 * Allocations recorded after the lowering (with outside-fork, in the child's
 * trace): 1 x 1048576 B in first_block,
 * N x 1048576 B in alloc_chunks, 40 x 65536 B in thread_blocks.
 */
#define _GNU_SOURCE
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "limit_blocks.h"

/* The setrlimit system call without the C library (-1: not on this
 * machine). */
static long setrlimit_instruction(const struct rlimit *lim)
{
#if defined(__x86_64__)
	long rc;

	__asm__ volatile("syscall"
			 : "=a"(rc)
			 : "0"((long)SYS_setrlimit), "D"((long)RLIMIT_AS), "S"(lim)
			 : "rcx", "r11", "memory");
	return rc;
#else
	(void)lim;
	return -1;
#endif
}

/* Writes our pid to path (through a rename: the reader never sees half of
 * it) and waits for a line on stdin; 0 or -1. */
static int wait_outside(const char *path)
{
	char tmp[4096], line[16];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f || fprintf(f, "%d\n", (int)getpid()) < 0 || fclose(f) != 0 ||
	    rename(tmp, path) != 0)
		return -1;
	return fgets(line, sizeof(line), stdin) ? 0 : -1;
}

/* In the parent: waits for the child and returns its exit status (3 when
 * fork fails or the child did not exit); in the child: -1. */
static int fork_and_wait(void)
{
	pid_t child;
	int status;

	fflush(stdout);
	child = fork();
	if (child == 0)
		return -1;
	if (child < 0 || waitpid(child, &status, 0) != child || !WIFEXITED(status))
		return 3;
	return WEXITSTATUS(status);
}

static __attribute__((noinline)) void *first_block(const char *how, void *small)
{
	void *p = NULL;

	if (strcmp(how, "malloc") == 0)
		p = malloc(CHUNK_BYTES);
	else if (strcmp(how, "calloc") == 0)
		p = calloc(1, CHUNK_BYTES);
	else if (strcmp(how, "realloc") == 0)
		p = realloc(NULL, CHUNK_BYTES);
	else if (strcmp(how, "realloc-grow") == 0)
		p = realloc(small, CHUNK_BYTES);
	else if (strcmp(how, "posix_memalign") == 0 && posix_memalign(&p, 64, CHUNK_BYTES) != 0)
		p = NULL;
	else if (strcmp(how, "aligned_alloc") == 0)
		p = aligned_alloc(64, CHUNK_BYTES);
	else if (strcmp(how, "memalign") == 0)
		p = memalign(64, CHUNK_BYTES);
	else if (strcmp(how, "valloc") == 0)
		p = valloc(CHUNK_BYTES);
	else if (strcmp(how, "pvalloc") == 0)
		p = pvalloc(CHUNK_BYTES);
	if (p)
		memset(p, 1, CHUNK_BYTES);
	return p;
}

static void *first_thread_main(void *arg)
{
	return arg;
}

/* FIRST mmap or thread: 1 made, 0 failed; -1 for the other FIRSTs. */
static int first_mapping(const char *how, const pthread_attr_t *attr)
{
	pthread_t thread;
	void *p;

	if (strcmp(how, "thread") == 0)
		return pthread_create(&thread, attr, first_thread_main, NULL) == 0 &&
		       pthread_join(thread, NULL) == 0;
	if (strcmp(how, "mmap") != 0)
		return -1;
	p = mmap(NULL, CHUNK_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 0;
	memset(p, 1, CHUNK_BYTES);
	munmap(p, CHUNK_BYTES);
	return 1;
}

int main(int argc, char **argv)
{
	static void *chunks[4096];
	pthread_attr_t attr;
	pthread_t threads[THREADS];
	int made[THREADS] = { 0 }, started[THREADS] = { 0 }, threads_made = 0, nchunks;
	struct rlimit lim;
	unsigned long limit_mib;
	void *small, *first, *big;
	long rc = 0;

	if (argc < 4)
		return 2;
	/* the same needs every run: one arena, small thread stacks */
	mallopt(M_ARENA_MAX, 1);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 256u << 10);
	limit_mib = strtoul(argv[2], NULL, 10);
	nchunks = (int)(limit_mib * 3 / 4);
	if (nchunks > (int)(sizeof(chunks) / sizeof(chunks[0])) || getrlimit(RLIMIT_AS, &lim) != 0)
		return 2;
	small = malloc(16);
	lim.rlim_cur = (rlim_t)limit_mib << 20;
	if (strcmp(argv[1], "syscall-setrlimit") == 0)
		rc = syscall(SYS_setrlimit, RLIMIT_AS, &lim);
	else if (strcmp(argv[1], "syscall-prlimit") == 0)
		rc = syscall(SYS_prlimit64, 0, RLIMIT_AS, &lim, NULL);
	else if (strcmp(argv[1], "instruction") == 0)
		rc = setrlimit_instruction(&lim);
	else if (strncmp(argv[1], "outside", 7) != 0 || argc < 5 || wait_outside(argv[4]) != 0)
		return 2;
	if (strcmp(argv[1], "outside-fork") == 0 && (rc = fork_and_wait()) >= 0)
		return (int)rc;
	if (strncmp(argv[1], "outside", 7) != 0)
		printf("set: %ld\n", rc);
	getrlimit(RLIMIT_AS, &lim);
	printf("limit: %lu MiB\n", (unsigned long)(lim.rlim_cur >> 20));

	rc = first_mapping(argv[3], &attr);
	first = rc < 0 ? first_block(argv[3], small) : NULL;
	if (!first || strcmp(argv[3], "realloc-grow") != 0)
		free(small); /* a grown block took its place */
	printf("first: %s\n", (rc < 0 ? first != NULL : rc == 1) ? "made" : "failed");
	printf("chunks: %d of %d\n", alloc_chunks(chunks, nchunks), nchunks);
	for (int i = 0; i < THREADS; i++)
		started[i] = pthread_create(&threads[i], &attr, thread_main, &made[i]) == 0;
	for (int i = 0; i < THREADS; i++)
		if (started[i] && pthread_join(threads[i], NULL) == 0)
			threads_made += made[i];
	printf("threads: %d of %d\n", threads_made, THREADS * THREAD_BLOCKS);
	big = malloc((size_t)limit_mib << 21);
	printf("too big: %s\n", big ? "made" : "failed");
	free(big);
	free(first);
	for (int i = 0; i < nchunks; i++)
		free(chunks[i]);
	return 0;
}
