/*
 * 14-realloc-edge-cases.c - hard case 14: the corners of realloc and
 * reallocarray, with glibc's semantics:
 *   realloc(p, 0)          frees p and returns NULL;
 *   realloc(NULL, n)       is an allocation of n bytes;
 *   a realloc that fails   returns NULL and leaves p live, unchanged;
 *   reallocarray(p, n, m)  is realloc(p, n * m), except that an overflowing
 *                          n * m fails with ENOMEM (p again left live).
 *
 * Why profilers get this wrong: a tracker that records a realloc only when
 * it returns a block never sees realloc(p, 0) free p, and reports p live
 * forever (memtools#2; nedmalloc#2 crashed on it); one that records the
 * free of the old block before it knows whether the call succeeded loses a
 * block that a failed realloc left live, and later calls its free
 * unmatched.
 *
 * The calls the compiler could fold or warn about take their sizes and
 * null pointer from volatile variables (gcc turns realloc(NULL, n) it can
 * see into malloc(n)).
 *
 * Expected facts (tests/cases/14-realloc-edge-cases.sh; "N / B" =
 * allocations / bytes, "leak" = blocks / bytes live at exit; counted as
 * mprof-report(1) says: each successful call one allocation of its new
 * size, failed calls and realloc(p, 0) none):
 *   1. exit status 0, stdout exactly "blocks kept: 7, problems: 0".
 *   2. from_null        4 x realloc(NULL, 300), kept     4 / 1200    leak 4 / 1200
 *      resize_steps     malloc(24), realloc to 240, 4800, 200000, then 30, kept
 *                                                        5 / 205094  leak 1 / 30
 *      realloc_too_big  malloc(333), realloc to SIZE_MAX / 2 fails, the
 *                       original block kept              1 / 333     leak 1 / 333
 *      array_resize     reallocarray(NULL, 12, 25), then (p, 16, 25), kept
 *                                                        2 / 700     leak 1 / 400
 *      together: 7 blocks / 1963 bytes live at exit.
 *   3. shrink_to_zero   8 x malloc(120), realloc(p, 0)   8 / 960     leak 0 / 0
 *   4. array_overflow   malloc(80), reallocarray(p, SIZE_MAX / 4, 16)
 *                       fails with ENOMEM, p freed       1 / 80      leak 0 / 0
 *      same_size        malloc(700), realloc to 700, freed
 *                                                        2 / 1400    leak 0 / 0
 *      churn            5000 x realloc(NULL, 24), realloc to 40 + (i & 63),
 *                       realloc to 12, free             15000 / 537276 leak 0 / 0
 *   Whole process: 8 realloc(p, 0) calls, 2 failed reallocs (the one of
 *   realloc_too_big and the reallocarray of array_overflow), no unmatched
 *   free.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOINLINE __attribute__((noinline))
#define CHURN_ROUNDS 5000

static void *volatile kept[16];
static int nkept, problems;

static void *volatile null_block = NULL;
static volatile size_t zero_size = 0;
static volatile size_t half_of_memory = SIZE_MAX / 2;
static volatile size_t overflowing_count = SIZE_MAX / 4;

static void keep(void *p)
{
	if (p == NULL)
		problems++;
	kept[nkept++] = p;
}

NOINLINE static void shrink_to_zero(void)
{
	for (int i = 0; i < 8; i++) {
		char *p = malloc(120);

		if (p == NULL) {
			problems++;
			continue;
		}
		memset(p, 'z', 120);
		p = realloc(p, zero_size); /* glibc: frees p, returns NULL */
		if (p != NULL) {
			problems++;
			free(p);
		}
	}
}

NOINLINE static void from_null(void)
{
	for (int i = 0; i < 4; i++)
		keep(realloc(null_block, 300));
}

NOINLINE static void resize_steps(void)
{
	static const size_t steps[] = { 240, 4800, 200000, 30 };
	char *p = malloc(24);

	for (size_t i = 0; p != NULL && i < sizeof(steps) / sizeof(steps[0]); i++) {
		char *q = realloc(p, steps[i]);

		if (q == NULL) {
			problems++;
			break;
		}
		p = q;
		memset(p, 's', steps[i]);
	}
	keep(p);
}

NOINLINE static void realloc_too_big(void)
{
	char *p = malloc(333);
	char *q;

	if (p == NULL) {
		problems++;
		return;
	}
	memset(p, 'b', 333);
	q = realloc(p, half_of_memory);
	if (q != NULL) {
		problems++;
		p = q;
	} else if (p[332] != 'b') { /* the old block must be intact */
		problems++;
	}
	keep(p);
}

NOINLINE static void array_resize(void)
{
	int *p = reallocarray(null_block, 12, 25);

	if (p != NULL)
		p = reallocarray(p, 16, 25);
	keep(p);
}

NOINLINE static void array_overflow(void)
{
	char *p = malloc(80);
	void *q;

	if (p == NULL) {
		problems++;
		return;
	}
	errno = 0;
	q = reallocarray(p, overflowing_count, 16);
	if (q != NULL || errno != ENOMEM) {
		problems++;
		if (q != NULL)
			p = q;
	}
	free(p); /* still ours: the call failed */
}

NOINLINE static void same_size(void)
{
	void *p = malloc(700);
	void *q = realloc(p, 700);

	if (q == NULL) {
		problems++;
		q = p;
	}
	free(q);
}

NOINLINE static void churn(void)
{
	for (int i = 0; i < CHURN_ROUNDS; i++) {
		void *p = realloc(null_block, 24);
		void *q = p ? realloc(p, 40 + (i & 63)) : NULL;
		void *r = q ? realloc(q, 12) : NULL;

		if (r == NULL)
			problems++;
		free(r);
	}
}

int main(void)
{
	shrink_to_zero();
	from_null();
	resize_steps();
	realloc_too_big();
	array_resize();
	array_overflow();
	same_size();
	churn();
	printf("blocks kept: %d, problems: %d\n", nkept, problems);
	return problems ? 1 : 0;
}
