/*
 * entry_points.c - every C allocator entry point, each called from its own
 * noinline function with its own size and count.  The program never uses
 * stdio (its only output is one write(2) at the end), so the process makes
 * no allocation of its own besides the ones listed here and the summary's
 * calls per entry point are exact.
 *
 * Expected facts (tests/e2e/entry-points.sh; "N / B" = allocations / bytes,
 * "leak" = blocks / bytes live at exit):
 *   use_malloc            5 x malloc(100), 3 freed      5 / 500      leak 2 / 200
 *   use_calloc            4 x calloc(10, 30)            4 / 1200     leak 1 / 300
 *   use_realloc_grow      malloc(16), realloc 64, 4096, 100000
 *                                                       4 / 104176   leak 1 / 100000
 *   use_realloc_shrink    malloc(5000), realloc 100     2 / 5100     leak 1 / 100
 *   use_realloc_move      malloc(100) x2, realloc of the first to 200000
 *                         (moves: prints "moved: yes"), blocker freed
 *                                                       3 / 200200   leak 1 / 200000
 *   use_realloc_null      3 x realloc(NULL, 77)         3 / 231      leak 3 / 231
 *   use_realloc_zero      4 x malloc(55), realloc(p, 0) 4 / 220      leak 0 / 0
 *   use_posix_memalign    2 x posix_memalign(64, 1000)  2 / 2000     leak 2 / 2000
 *   use_aligned_alloc     3 x aligned_alloc(128, 512)   3 / 1536     leak 3 / 1536
 *   use_memalign          2 x memalign(32, 333)         2 / 666      leak 2 / 666
 *   use_valloc            2 x valloc(1234)              2 / 2468     leak 2 / 2468
 *   use_pvalloc           1 x pvalloc(5000)             1 / 5000     leak 1 / 5000
 *   use_reallocarray      reallocarray(NULL, 7, 11), then (p, 9, 11)
 *                                                       2 / 176      leak 1 / 99
 *   use_free_sized        3 x malloc(300), freed with free_sized when the
 *                         C library has one (a weak reference: a failed
 *                         dlsym allocates its error text), else free
 *                                                       3 / 900      leak 0 / 0
 *   use_free_aligned_sized 2 x aligned_alloc(64, 640), freed with
 *                         free_aligned_sized when found, else free
 *                                                       2 / 1280     leak 0 / 0
 *   parse_header          7 x malloc(1024) at the line marked LEAK_LINE
 *                                                       7 / 7168     leak 7 / 7168
 * Allocations per entry point (whole process): malloc 23 (use_malloc 5,
 * use_realloc_grow 1, use_realloc_shrink 1, use_realloc_move 2,
 * use_realloc_zero 4, use_free_sized 3, parse_header 7), calloc 4,
 * realloc 8 (3 + 1 + 1 + 3 realloc(NULL, 77); the 4 realloc(p, 0) are frees),
 * posix_memalign 2, aligned_alloc 5, memalign 2, valloc 2, pvalloc 1,
 * reallocarray 2.
 * Totals: 49 allocations, 332821 bytes; 27 blocks / 319768 bytes live at
 * exit.  Unmatched frees: 0.
 * stdout: "moved: yes, free_sized: F, free_aligned_sized: G\n" where F and G
 * are "found" or "missing".
 */
#define _GNU_SOURCE
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static void *volatile keep[64];
static int nkeep;
static volatile size_t zero_bytes = 0;
static void *volatile no_block = NULL; /* gcc turns realloc(NULL, n) into malloc(n) */
static int moved;

static void hold(void *p) { keep[nkeep++] = p; }

NOINLINE static void use_malloc(void)
{
	void *p[5];
	for (int i = 0; i < 5; i++)
		p[i] = keep[40 + i] = malloc(100);
	for (int i = 0; i < 3; i++)
		free(p[i]);
	hold(p[3]);
	hold(p[4]);
}

NOINLINE static void use_calloc(void)
{
	for (int i = 0; i < 4; i++) {
		void *p = calloc(10, 30);
		if (i < 3)
			free(p);
		else
			hold(p);
	}
}

NOINLINE static void use_realloc_grow(void)
{
	void *p = malloc(16);
	p = realloc(p, 64);
	p = realloc(p, 4096);
	p = realloc(p, 100000);
	hold(p);
}

NOINLINE static void use_realloc_shrink(void)
{
	void *p = malloc(5000);
	p = realloc(p, 100);
	hold(p);
}

NOINLINE static void use_realloc_move(void)
{
	void *a = malloc(100);
	void *blocker = malloc(100); /* keeps a from growing in place */
	keep[50] = blocker;
	void *b = realloc(a, 200000);  /* beyond the mmap threshold: moves */
	moved = b != a;
	free(blocker);
	hold(b);
}

NOINLINE static void use_realloc_null(void)
{
	for (int i = 0; i < 3; i++)
		hold(realloc(no_block, 77));
}

NOINLINE static void use_realloc_zero(void)
{
	for (int i = 0; i < 4; i++) {
		void *p = malloc(55);
		keep[51] = p;
		p = realloc(p, zero_bytes); /* glibc: frees p, returns NULL */
		if (p)
			hold(p);
	}
}

NOINLINE static void use_posix_memalign(void)
{
	for (int i = 0; i < 2; i++) {
		void *p = NULL;
		if (posix_memalign(&p, 64, 1000) == 0)
			hold(p);
	}
}

NOINLINE static void use_aligned_alloc(void)
{
	for (int i = 0; i < 3; i++)
		hold(aligned_alloc(128, 512));
}

NOINLINE static void use_memalign(void)
{
	for (int i = 0; i < 2; i++)
		hold(memalign(32, 333));
}

NOINLINE static void use_valloc(void)
{
	for (int i = 0; i < 2; i++)
		hold(valloc(1234));
}

NOINLINE static void use_pvalloc(void)
{
	hold(pvalloc(5000));
}

NOINLINE static void use_reallocarray(void)
{
	void *p = reallocarray(no_block, 7, 11);
	p = reallocarray(p, 9, 11);
	hold(p);
}

/* C23's sized frees, which glibc 2.36 lacks: NULL where nothing defines them. */
extern void free_sized(void *p, size_t size_bytes) __attribute__((weak));
extern void free_aligned_sized(void *p, size_t align_bytes, size_t size_bytes)
	__attribute__((weak));

NOINLINE static int use_free_sized(void)
{
	void (*volatile fs)(void *, size_t) = free_sized;

	for (int i = 0; i < 3; i++) {
		void *p = malloc(300);
		keep[52] = p;
		if (fs)
			fs(p, 300);
		else
			free(p);
	}
	return fs != NULL;
}

NOINLINE static int use_free_aligned_sized(void)
{
	void (*volatile fas)(void *, size_t, size_t) = free_aligned_sized;

	for (int i = 0; i < 2; i++) {
		void *p = aligned_alloc(64, 640);
		keep[53] = p;
		if (fas)
			fas(p, 64, 640);
		else
			free(p);
	}
	return fas != NULL;
}

NOINLINE static void parse_header(void)
{
	for (int i = 0; i < 7; i++) {
		char *field = malloc(1024); /* LEAK_LINE */
		hold(field);
	}
}

static void say(const char *s) { (void)!write(1, s, strlen(s)); }

int main(void)
{
	use_malloc();
	use_calloc();
	use_realloc_grow();
	use_realloc_shrink();
	use_realloc_move();
	use_realloc_null();
	use_realloc_zero();
	use_posix_memalign();
	use_aligned_alloc();
	use_memalign();
	use_valloc();
	use_pvalloc();
	use_reallocarray();
	int fs = use_free_sized();
	int fas = use_free_aligned_sized();
	parse_header();
	say(moved ? "moved: yes" : "moved: no");
	say(fs ? ", free_sized: found" : ", free_sized: missing");
	say(fas ? ", free_aligned_sized: found\n" : ", free_aligned_sized: missing\n");
	return 0;
}
