/*
 * foreign_ahead.c - run with tests/progs/guard_alloc.c loaded ahead of the
 * recorder (LD_PRELOAD="libguard_alloc.so $LD_PRELOAD"), so that the
 * program's malloc, free and realloc are guard_alloc's while reallocarray,
 * which guard_alloc lacks (as jemalloc does), is the recorder's.  The C
 * library's reallocarray calls realloc through its PLT, so without mprof
 * both blocks below come from guard_alloc; the recorder's must do the same
 * (it took them from the C library's heap, and `sort -n` with jemalloc
 * ahead died of SIGSEGV when jemalloc freed one), and must not read the
 * word before a guard_alloc block (an inaccessible page) as a glibc chunk
 * header when it grows one.  A reallocarray whose n * size overflows fails
 * with ENOMEM and leaves the block as it was, as the C library's does.
 *
 * Facts (tests/e2e/foreign-ahead.sh): stdout "reallocarray blocks from
 * guard_alloc: 2 of 2, sum 45" then "overflowing reallocarray: NULL,
 * ENOMEM, block kept: 1", exit status 0 (1 when a block is not
 * guard_alloc's, 2 when guard_alloc is not loaded).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
	int (*owns)(const void *) = (int (*)(const void *))dlsym(RTLD_DEFAULT, "guard_alloc_owns");
	long *a, *b, *c, sum = 0;
	int from_guard = 0, kept;

	if (!owns) {
		printf("guard_alloc is not loaded\n");
		return 2;
	}
	a = reallocarray(NULL, 10, sizeof(long)); /* a new block */
	if (!a)
		return 1;
	for (int i = 0; i < 10; i++)
		a[i] = i;
	from_guard += owns(a);
	b = reallocarray(a, 1000, sizeof(long)); /* grows it */
	if (!b)
		return 1;
	from_guard += owns(b);
	for (int i = 0; i < 10; i++)
		sum += b[i];
	printf("reallocarray blocks from guard_alloc: %d of 2, sum %ld\n", from_guard, sum);
	errno = 0;
	c = reallocarray(b, SIZE_MAX / 4, 16);
	kept = owns(b) && b[9] == 9;
	printf("overflowing reallocarray: %s, %s, block kept: %d\n", c ? "a block" : "NULL",
	       errno == ENOMEM ? "ENOMEM" : "not ENOMEM", kept);
	free(b);
	return from_guard == 2 ? 0 : 1;
}
