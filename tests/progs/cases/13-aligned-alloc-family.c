/*
 * 13-aligned-alloc-family.c - hard case 13: the aligned allocation entry
 * points of glibc (memalign, aligned_alloc, posix_memalign, valloc,
 * pvalloc), each from a function of its own with its own count and size,
 * a loop that uses all five and frees what it gets, and calls of each
 * that must fail.
 *
 * Why profilers get this wrong: some hook only malloc/calloc/realloc and
 * miss these entry points (memray#78: aligned_alloc not seen), or abort on
 * one they do not implement (bytehound#70: "'memalign' is
 * unimplemented"); some hook two entry points of which the C library
 * implements one through the other, so one block is counted twice
 * (async-profiler#1130); some record a failed call as a block, or hand
 * back blocks whose alignment or malloc_usable_size() is not what the C
 * library promised (drmemory#94).
 *
 * The program checks every block it gets: non-null, aligned as asked
 * (valloc and pvalloc: to the page), malloc_usable_size() at least the
 * requested size (pvalloc: a whole number of pages); and that every call
 * in fail_each returns NULL (or EINVAL / ENOMEM for posix_memalign, the
 * pointer left untouched).  Each wrong answer is a "problem".
 *
 * Expected facts (tests/cases/13-aligned-alloc-family.sh; "N / B" =
 * allocations / bytes, "leak" = blocks / bytes live at exit):
 *   1. exit status 0, stdout exactly "aligned blocks kept: 20, problems: 0".
 *   2. keep_memalign        4 x memalign(128, 2500)        4 / 10000  leak 4 / 10000
 *      keep_aligned_alloc   3 x aligned_alloc(512, 3072)   3 / 9216   leak 3 / 9216
 *      keep_posix_memalign  6 x posix_memalign(64, 1800)   6 / 10800  leak 6 / 10800
 *      keep_valloc          2 x valloc(9000)               2 / 18000  leak 2 / 18000
 *      keep_pvalloc         5 x pvalloc(3000)              5 / 15000  leak 5 / 15000
 *      (pvalloc counted with the requested size, as mprof-report(1) says,
 *      not the 4096 bytes per block the C library reserves).
 *   3. the five keep_* functions together: 20 allocations (no block counted
 *      twice); churn_all, 80 rounds of memalign(16, 40 + r),
 *      aligned_alloc(32, 96), posix_memalign(256, 500 - r), valloc(64),
 *      pvalloc(128 + r), r = 0..79, each block freed in the round:
 *      400 / 69400, leak 0 / 0.
 *      Calls per entry point (the kept ones plus 80 each from churn_all;
 *      failed calls count nothing): memalign 84, aligned_alloc 83,
 *      posix_memalign 86, valloc 82, pvalloc 85.
 *   4. fail_each: no allocation at all (7 calls that all fail).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))
#define CHURN_ROUNDS 80

static void *volatile kept[32];
static int nkept, problems;
static size_t page;

/* Sizes the compiler cannot see, so that it neither warns about them nor
 * folds the calls that must fail. */
static volatile size_t too_big = SIZE_MAX - 8192;
static volatile size_t half_too_big = SIZE_MAX / 2 + 1;

/* Counts a problem unless p is a block of at least size usable bytes on an
 * align boundary. */
static void inspect(void *p, size_t align, size_t size)
{
	if (p == NULL) {
		problems++;
		return;
	}
	if ((uintptr_t)p % align != 0)
		problems++;
	if (malloc_usable_size(p) < size)
		problems++;
}

static void keep(void *p)
{
	kept[nkept++] = p;
}

NOINLINE static void keep_memalign(void)
{
	for (int i = 0; i < 4; i++) {
		void *p = memalign(128, 2500);

		inspect(p, 128, 2500);
		keep(p);
	}
}

NOINLINE static void keep_aligned_alloc(void)
{
	for (int i = 0; i < 3; i++) {
		void *p = aligned_alloc(512, 3072);

		inspect(p, 512, 3072);
		keep(p);
	}
}

NOINLINE static void keep_posix_memalign(void)
{
	for (int i = 0; i < 6; i++) {
		void *p = NULL;

		if (posix_memalign(&p, 64, 1800) != 0)
			problems++;
		inspect(p, 64, 1800);
		keep(p);
	}
}

NOINLINE static void keep_valloc(void)
{
	for (int i = 0; i < 2; i++) {
		void *p = valloc(9000);

		inspect(p, page, 9000);
		keep(p);
	}
}

NOINLINE static void keep_pvalloc(void)
{
	for (int i = 0; i < 5; i++) {
		void *p = pvalloc(3000);

		/* pvalloc rounds the size up to whole pages */
		inspect(p, page, (3000 + page - 1) / page * page);
		keep(p);
	}
}

NOINLINE static void churn_all(void)
{
	for (int r = 0; r < CHURN_ROUNDS; r++) {
		void *blocks[5];

		blocks[0] = memalign(16, 40 + r);
		inspect(blocks[0], 16, 40 + r);
		blocks[1] = aligned_alloc(32, 96);
		inspect(blocks[1], 32, 96);
		blocks[2] = NULL;
		if (posix_memalign(&blocks[2], 256, 500 - r) != 0)
			problems++;
		inspect(blocks[2], 256, 500 - r);
		blocks[3] = valloc(64);
		inspect(blocks[3], page, 64);
		blocks[4] = pvalloc(128 + r);
		inspect(blocks[4], page, page);
		for (int i = 0; i < 5; i++)
			free(blocks[i]);
	}
}

/* A call that must fail: counts a problem (and frees the block) when it
 * returned one. */
static void expect_null(void *p)
{
	if (p != NULL) {
		problems++;
		free(p);
	}
}

NOINLINE static void fail_each(void)
{
	void *untouched = &page;
	void *p = untouched;

	/* alignment not a power of two */
	if (posix_memalign(&p, 96, 100) != EINVAL || p != untouched)
		problems++;
	/* a power of two, but not a multiple of sizeof(void *) */
	if (posix_memalign(&p, sizeof(void *) / 2, 100) != EINVAL || p != untouched)
		problems++;
	/* no memory that large */
	if (posix_memalign(&p, 64, too_big) != ENOMEM || p != untouched)
		problems++;
	expect_null(aligned_alloc(64, too_big));
	expect_null(memalign(4096, half_too_big));
	expect_null(valloc(too_big));
	expect_null(pvalloc(too_big));
}

int main(void)
{
	page = (size_t)sysconf(_SC_PAGESIZE);
	keep_memalign();
	keep_aligned_alloc();
	keep_posix_memalign();
	keep_valloc();
	keep_pvalloc();
	churn_all();
	fail_each();
	printf("aligned blocks kept: %d, problems: %d\n", nkept, problems);
	return problems ? 1 : 0;
}
