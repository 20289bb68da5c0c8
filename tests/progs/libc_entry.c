/*
 * libc_entry.c - calls of the C library's internal allocator entry points
 * (__libc_malloc and kin, tests/progs/libc_entry.h), mixed with the public
 * ones: a block from malloc freed with __libc_free and the reverse.  Each
 * function is noinline with its own sizes and counts; the program never
 * uses stdio (its only output is one write(2) at the end) and exits with
 * status 5.  Linked with tests/progs/libc_entry_lib.c (lib_grab, lib_drop).
 *
 * Expected facts (tests/e2e/libc-entry-points.sh; "N / B" = allocations /
 * bytes, "leak" = blocks / bytes live at exit):
 *   mix_malloc_libc_free   4 x malloc(100), 3 freed with __libc_free
 *                                                     4 / 400      leak 1 / 100
 *   mix_libc_malloc_free   5 x __libc_malloc(200) at LEAK_LINE, 3 freed
 *                          with free                  5 / 1000     leak 2 / 400
 *   use_libc_calloc        3 x __libc_calloc(10, 30), 2 freed with
 *                          __libc_free                3 / 900      leak 1 / 300
 *   use_libc_realloc       __libc_malloc(16), __libc_realloc to 64 and
 *                          100000; __libc_realloc(NULL, 77);
 *                          __libc_malloc(55) then __libc_realloc(p, 0)
 *                                                     5 / 100212   leak 2 / 100077
 *   use_libc_memalign      2 x __libc_memalign(64, 333), 1 freed with free
 *                                                     2 / 666      leak 1 / 333
 *   use_libc_valloc        2 x __libc_valloc(1234), 1 freed with __libc_free
 *                                                     2 / 2468     leak 1 / 1234
 *   use_libc_pvalloc       __libc_pvalloc(5000)       1 / 5000     leak 1 / 5000
 *   use_libc_reallocarray  __libc_reallocarray(NULL, 7, 11), then (p, 9, 11)
 *                                                     2 / 176      leak 1 / 99
 *   use_lib                3 x lib_grab(48), 2 given to lib_drop
 *                                                     3 / 144      leak 1 / 48
 * Calls per entry point (whole process): malloc 14 (4 + 5 + 2 + 3),
 * calloc 3, realloc 3 (64, 100000, NULL -> 77; the one to 0 is a free),
 * memalign 2, valloc 2, pvalloc 1, reallocarray 2; free 12, realloc to
 * zero 1.  Totals: 27 allocations, 110966 bytes; 11 blocks / 107591 bytes
 * live at exit; 16 blocks freed.  Unmatched frees: 0.
 * stdout: "done\n"; exit status 5.
 *
 * With the argument "thread" it instead runs thread_first_use in a new
 * thread, whose first allocator call is __libc_malloc: 3 x
 * __libc_malloc(123), 1 freed with free, 1 with __libc_free
 *                                                     3 / 369      leak 1 / 123
 * (pthread_create allocates too); stdout "thread done\n", exit status 5.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libc_entry.h"

#define NOINLINE __attribute__((noinline))

void *lib_grab(size_t size);
void lib_drop(void *p);

static void *volatile keep[32];
static int nkeep;
static volatile size_t zero_bytes = 0;
static void *volatile no_block = NULL;

static void hold(void *p) { keep[nkeep++] = p; }

NOINLINE static void mix_malloc_libc_free(void)
{
	void *p[4];

	for (int i = 0; i < 4; i++)
		p[i] = keep[20] = malloc(100);
	for (int i = 0; i < 3; i++)
		__libc_free(p[i]);
	hold(p[3]);
}

NOINLINE static void mix_libc_malloc_free(void)
{
	void *p[5];

	for (int i = 0; i < 5; i++)
		p[i] = __libc_malloc(200); /* LEAK_LINE */
	for (int i = 0; i < 3; i++)
		free(p[i]);
	hold(p[3]);
	hold(p[4]);
}

NOINLINE static void use_libc_calloc(void)
{
	for (int i = 0; i < 3; i++) {
		void *p = __libc_calloc(10, 30);

		if (i < 2)
			__libc_free(p);
		else
			hold(p);
	}
}

NOINLINE static void use_libc_realloc(void)
{
	void *p = __libc_malloc(16);
	void *q;

	p = __libc_realloc(p, 64);
	p = __libc_realloc(p, 100000);
	hold(p);
	hold(__libc_realloc(no_block, 77));
	q = __libc_malloc(55);
	keep[21] = q;
	q = __libc_realloc(q, zero_bytes); /* glibc: frees q, returns NULL */
	if (q)
		hold(q);
}

NOINLINE static void use_libc_memalign(void)
{
	void *p = __libc_memalign(64, 333);

	keep[22] = p;
	free(p);
	hold(__libc_memalign(64, 333));
}

NOINLINE static void use_libc_valloc(void)
{
	void *p = __libc_valloc(1234);

	keep[23] = p;
	__libc_free(p);
	hold(__libc_valloc(1234));
}

NOINLINE static void use_libc_pvalloc(void)
{
	hold(__libc_pvalloc(5000));
}

NOINLINE static void use_libc_reallocarray(void)
{
	void *p = __libc_reallocarray(no_block, 7, 11);

	p = __libc_reallocarray(p, 9, 11);
	hold(p);
}

NOINLINE static void use_lib(void)
{
	void *p[3];

	for (int i = 0; i < 3; i++)
		p[i] = keep[24] = lib_grab(48);
	lib_drop(p[0]);
	lib_drop(p[1]);
	hold(p[2]);
}

NOINLINE static void *thread_first_use(void *arg)
{
	void *p[3];

	for (int i = 0; i < 3; i++)
		p[i] = keep[25] = __libc_malloc(123);
	free(p[0]);
	__libc_free(p[1]);
	hold(p[2]);
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t thread;

	if (argc > 1 && strcmp(argv[1], "thread") == 0) {
		if (pthread_create(&thread, NULL, thread_first_use, NULL) != 0 ||
		    pthread_join(thread, NULL) != 0)
			return 1;
		return write(1, "thread done\n", 12) == 12 ? 5 : 1;
	}
	mix_malloc_libc_free();
	mix_libc_malloc_free();
	use_libc_calloc();
	use_libc_realloc();
	use_libc_memalign();
	use_libc_valloc();
	use_libc_pvalloc();
	use_libc_reallocarray();
	use_lib();
	if (write(1, "done\n", 5) != 5)
		return 1;
	return 5;
}
