/*
 * tests/progs/mlock_limit.c - a program that locks its memory under a small
 * RLIMIT_MEMLOCK, as a program run without CAP_IPC_LOCK does
 * (tests/e2e/mlock-limit.sh).
 *
 * Usage: mlock_limit HOW LIMIT_KIB
 *   HOW  libc     mlockall(MCL_CURRENT | MCL_FUTURE)
 *        syscall  syscall(SYS_mlockall, MCL_CURRENT | MCL_FUTURE)
 *        onfault  mlockall(MCL_CURRENT | MCL_FUTURE | MCL_ONFAULT)
 *        current  mlockall(MCL_CURRENT)
 * Sets RLIMIT_MEMLOCK (soft and hard) to LIMIT_KIB with setrlimit, makes
 * the call and prints its result and errno.  When it succeeded: 4 threads
 * (on stacks of 128 KiB) each make BLOCKS_PER_THREAD blocks of 48 bytes in
 * thread_blocks and free them; a block of 256 KiB is locked with mlock and
 * one of 256 KiB with mlock2(MLOCK_ONFAULT) (results printed); a block of
 * twice the limit is asked for (printed: whether it came, which under
 * MCL_FUTURE it does not); then munlockall, and whether VmLck was above
 * zero before it and is zero after it.
 * Exits 0.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "status_kib.h"

#define THREADS 4
#define BLOCKS_PER_THREAD 1000
#define BLOCK_BYTES (256 << 10)

/* called through a volatile pointer: the compiler keeps every call */
static void *(*volatile alloc_fn)(size_t) = malloc;

static _Atomic int blocks_made;

static void *thread_blocks(void *arg)
{
	void *blocks[BLOCKS_PER_THREAD];

	(void)arg;
	for (int i = 0; i < BLOCKS_PER_THREAD; i++)
		if ((blocks[i] = alloc_fn(48)))
			blocks_made++;
	for (int i = 0; i < BLOCKS_PER_THREAD; i++)
		free(blocks[i]);
	return NULL;
}

/* Prints what a call returned: "WHAT: 0" or "WHAT: -1 ERRNAME". */
static void said(const char *what, int rc, int err)
{
	printf("%s: %d%s%s\n", what, rc, rc ? " " : "", rc ? strerrorname_np(err) : "");
}

int main(int argc, char **argv)
{
	pthread_t threads[THREADS];
	pthread_attr_t attr;
	struct rlimit lim;
	void *block, *onfault, *big;
	long before;
	int rc;

	if (argc != 3)
		return 2;
	lim.rlim_cur = lim.rlim_max = strtoul(argv[2], NULL, 10) << 10;
	if (setrlimit(RLIMIT_MEMLOCK, &lim) != 0)
		return 2;
	/* one arena: a thread's own (64 MiB of address space) cannot be
	 * mapped under MCL_FUTURE and the limit, and its mallocs would fail */
	mallopt(M_ARENA_MAX, 1);
	if (strcmp(argv[1], "syscall") == 0)
		rc = (int)syscall(SYS_mlockall, MCL_CURRENT | MCL_FUTURE);
	else if (strcmp(argv[1], "onfault") == 0)
		rc = mlockall(MCL_CURRENT | MCL_FUTURE | MCL_ONFAULT);
	else if (strcmp(argv[1], "current") == 0)
		rc = mlockall(MCL_CURRENT);
	else
		rc = mlockall(MCL_CURRENT | MCL_FUTURE);
	said("mlockall", rc, errno);
	if (rc != 0)
		return 0;
	before = status_kib("VmLck:");
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 128 << 10);
	/* one after another: the heap's growth, and so VmLck's, is the same
	 * in every run */
	for (int i = 0; i < THREADS; i++) {
		if (pthread_create(&threads[i], &attr, thread_blocks, NULL) != 0)
			return 1;
		pthread_join(threads[i], NULL);
	}
	printf("threads: %d blocks\n", blocks_made);
	printf("VmLck grew by the threads: %ld kB\n", status_kib("VmLck:") - before);
	block = alloc_fn(BLOCK_BYTES);
	onfault = alloc_fn(BLOCK_BYTES);
	if (!block || !onfault)
		return 1;
	rc = mlock(block, BLOCK_BYTES);
	said("mlock", rc, errno);
	rc = (int)syscall(SYS_mlock2, onfault, BLOCK_BYTES, MLOCK_ONFAULT);
	said("mlock2", rc, errno);
	big = alloc_fn(2 * (size_t)lim.rlim_cur);
	printf("block of twice the limit: %s\n", big ? "came" : "refused");
	free(big);
	before = status_kib("VmLck:");
	rc = munlockall();
	said("munlockall", rc, errno);
	printf("VmLck above 0 before: %s, 0 after: %s\n", before > 0 ? "yes" : "no",
	       status_kib("VmLck:") == 0 ? "yes" : "no");
	free(block);
	free(onfault);
	return 0;
}
