/*
 * wording_reallocs.c - one call of each kind of realloc, for the report's
 * "frees:" and "calls:" lines (tests/e2e/wording-reallocs.sh):
 *   realloc(NULL, 100)          a malloc of 100 B
 *   realloc(p, 0)               a free (glibc returns NULL)
 *   reallocarray(NULL, 10, 10)  a malloc of 100 B
 *   realloc(p, huge)            fails with ENOMEM: p stays live
 *   realloc(p, 50)              shrinks p in place (glibc)
 *   realloc(p, 100000)          grows p past its chunk: it moves (mmap)
 *   reallocarray(p, 20, 10)     a realloc of a live block, 200 B
 *   free(p)
 * Facts: 5 allocations, 100450 B; 2 free calls (one realloc(p, 0)); 3
 * reallocs of a live block; realloc 3 and reallocarray 2 calls that
 * allocated, 1 failed; peak 100000 B in 1 block; temporary 4 (all but the
 * reallocarray(NULL) block, whose thread's next event is the failed call).
 * stdout: "stayed 1 moved 1 failed 1"; exits with status 0.
 */
#define _GNU_SOURCE /* reallocarray */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void *volatile wording_sink;
void *volatile wording_null;                  /* a NULL the compiler cannot see */
volatile size_t wording_huge = SIZE_MAX / 2;  /* more than any heap can give */
volatile size_t wording_zero;

int main(void)
{
	void *p, *q, *old;
	int stayed, moved, failed;
	char line[64];

	p = realloc(wording_null, 100);
	wording_sink = realloc(p, wording_zero);
	p = reallocarray(wording_null, 10, 10);
	q = realloc(p, wording_huge);
	failed = q == NULL;
	old = p;
	p = realloc(p, 50);
	stayed = p == old;
	old = p;
	p = realloc(p, 100000);
	moved = p != old;
	p = reallocarray(p, 20, 10);
	free(p);
	/* snprintf and write: stdio would malloc a buffer for stdout */
	snprintf(line, sizeof(line), "stayed %d moved %d failed %d\n", stayed, moved, failed);
	return write(1, line, strlen(line)) == (ssize_t)strlen(line) ? 0 : 1;
}
