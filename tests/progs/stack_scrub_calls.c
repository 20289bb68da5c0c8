/*
 * stack_scrub_calls.c - what the deep scrub after a stack capture
 * (preload/stack_scrub.h) asks the kernel and which pages it reads.  Runs
 * in one thread (1 MiB stack), whose first 64 KiB it touches first, as a
 * program that ran a while has.
 *   count N: N allocations at N call sites, a recursion 1 to N levels deep;
 *     stdout "sites N".  (The test counts the mincore calls.)
 *   drop madvise|syscall|munmap: allocates at a new site, then drops the
 *     pages wholly 4 to 12 KiB below its frame (madvise(MADV_DONTNEED),
 *     syscall(SYS_madvise) or munmap; no capture reaches them: 5.4 KiB at
 *     most), allocates at another new site from the same frame, whose
 *     scrub covers them, and asks mincore which of them are resident;
 *     maps them again after munmap.  stdout "dropped P resident_before R0
 *     resident_after R1": P pages, none resident after the drop and none
 *     after the second allocation.
 * All blocks are freed; exit status 0.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PAGE 4096u

static int mode_count;
static int sites = 0;
static const char *drop_how = "";

/* Writes 64 KiB of stack below the caller, as deeper calls did. */
__attribute__((noinline)) static void stack_touch(void)
{
	volatile char deep[64 * 1024];

	memset((char *)deep, 1, sizeof(deep));
	__asm__ volatile("" ::"r"(deep) : "memory");
}

/* Allocates at depth levels below its first call; each depth is a call
 * site of its own. */
__attribute__((noinline)) static void *nest(int depth)
{
	void *p;

	if (depth == 0)
		return malloc(16);
	p = nest(depth - 1);
	__asm__ volatile("" ::: "memory");
	return p;
}

/* Pages of [lo, lo + pages * PAGE) that are resident. */
static int resident_pages(uintptr_t lo, unsigned pages)
{
	unsigned char vec[8];
	int n = 0;

	if (mincore((void *)lo, pages * PAGE, vec) != 0) {
		perror("mincore");
		exit(1);
	}
	for (unsigned i = 0; i < pages; i++)
		n += vec[i] & 1;
	return n;
}

/* Drops [lo, lo + bytes) as drop_how says. */
static void drop(uintptr_t lo, size_t bytes)
{
	int rc;

	if (!strcmp(drop_how, "madvise"))
		rc = madvise((void *)lo, bytes, MADV_DONTNEED);
	else if (!strcmp(drop_how, "syscall"))
		rc = (int)syscall(SYS_madvise, lo, bytes, MADV_DONTNEED);
	else
		rc = munmap((void *)lo, bytes);
	if (rc != 0) {
		perror(drop_how);
		exit(1);
	}
}

/* The drop case, from one frame: two call sites (which), one before the
 * drop and one after. */
__attribute__((noinline)) static void drop_case(void)
{
	uintptr_t frame = (uintptr_t)__builtin_frame_address(0);
	uintptr_t hi = (frame - 4 * PAGE) & ~(uintptr_t)(PAGE - 1), lo = hi - 2 * PAGE;
	void *a, *b;
	int before, after;

	a = malloc(24);
	__asm__ volatile("" ::: "memory");
	drop(lo, hi - lo);
	before = !strcmp(drop_how, "munmap") ? 0 : resident_pages(lo, 2);
	b = malloc(40);
	__asm__ volatile("" ::: "memory");
	if (!strcmp(drop_how, "munmap")) {
		after = 0;
		if (mmap((void *)lo, hi - lo, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED) {
			perror("mmap");
			exit(1);
		}
	} else {
		after = resident_pages(lo, 2);
	}
	printf("dropped 2 resident_before %d resident_after %d\n", before, after);
	free(a);
	free(b);
}

static void *worker(void *arg)
{
	(void)arg;
	stack_touch();
	if (mode_count) {
		for (int k = 1; k <= sites; k++)
			free(nest(k));
		printf("sites %d\n", sites);
	} else {
		drop_case();
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_attr_t attr;
	pthread_t th;

	if (argc == 3 && !strcmp(argv[1], "count")) {
		mode_count = 1;
		sites = atoi(argv[2]);
	} else if (argc == 3 && !strcmp(argv[1], "drop")) {
		drop_how = argv[2];
	} else {
		fprintf(stderr, "usage: stack_scrub_calls count N | drop madvise|syscall|munmap\n");
		return 2;
	}
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 1 << 20);
	if (pthread_create(&th, &attr, worker, NULL) != 0)
		return 1;
	pthread_join(th, NULL);
	return 0;
}
