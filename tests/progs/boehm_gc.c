/*
 * boehm_gc.c - a program on Boehm's conservative collector (libgc): 200,000
 * collected blocks of 64..319 bytes beside 200,000 malloc/free pairs of 32
 * bytes, then prints the collector's heap size and its number of
 * collections, which libgc chooses from what it scans at each collection
 * (the writable segments of every loaded library among it, and the
 * thread's stack).  Facts: tests/e2e/boehm-gc.sh.
 */
#include <gc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
	long sum = 0;

	GC_INIT();
	for (int i = 0; i < 200000; i++) {
		char *p = GC_MALLOC(64 + (size_t)(i % 256));
		char *volatile q = malloc(32); /* volatile: kept by the compiler */

		memset(p, 1, 8);
		sum += p[0];
		free(q);
	}
	GC_gcollect();
	printf("sum %ld, collected heap %zu bytes, %lu collections\n", sum,
	       (size_t)GC_get_heap_size(), (unsigned long)GC_get_gc_no());
	return 0;
}
