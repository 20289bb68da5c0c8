/*
 * libc_wrap.c - a program that defines malloc, free, calloc and realloc
 * itself as thin wrappers over the C library's __libc_malloc, __libc_free,
 * __libc_calloc and __libc_realloc (the old hook pattern of GC and debug
 * wrappers), counting its calls.  The C library's own calls (strdup) reach
 * these definitions by plain symbol lookup.  Never uses stdio: its only
 * output is one write(2) at the end; exits with status 4.
 *
 * Expected facts (tests/e2e/libc-entry-points.sh; the recorded stack starts
 * inside the wrapper, whose frame the report drops as an allocator wrapper
 * like strdup's, so each site is the function below):
 *   make_names    2 x strdup of a 3-letter name, 1 freed
 *                                                   2 / 8      leak 1 / 4
 *   wrap_malloc   3 x malloc(300) (the wrapper's __libc_malloc call at
 *                 WRAP_LINE), 2 freed               3 / 900    leak 1 / 300
 *   wrap_calloc   2 x calloc(4, 25), both freed     2 / 200    leak 0 / 0
 *   wrap_realloc  malloc(10), realloc to 1000; reallocarray(NULL, 5, 20),
 *                 which reaches the realloc here (the C library's does
 *                 so natively, mprof's as well)
 *                                                   3 / 1110   leak 2 / 1100
 * Totals: 10 allocations, 2218 bytes; 4 blocks / 1404 bytes live at exit.
 * Calls: malloc 6, calloc 2, realloc 2, free 5.  Unmatched frees: 0.
 * stdout: "malloc 6, calloc 2, realloc 2, free 5\n".
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libc_entry.h"

#define NOINLINE __attribute__((noinline))

static unsigned long n_malloc, n_calloc, n_realloc, n_free;
static void *volatile keep[8];
static int nkeep;
static const char *volatile name = "abc"; /* volatile: no strdup folding */
static void *volatile no_block = NULL;

void *malloc(size_t size)
{
	n_malloc++;
	return __libc_malloc(size); /* WRAP_LINE */
}

void free(void *p)
{
	if (p)
		n_free++;
	__libc_free(p);
}

void *calloc(size_t n, size_t size)
{
	n_calloc++;
	return __libc_calloc(n, size);
}

void *realloc(void *p, size_t size)
{
	n_realloc++;
	return __libc_realloc(p, size);
}

static void hold(void *p) { keep[nkeep++] = p; }

NOINLINE static void make_names(void)
{
	char *a = strdup(name);

	hold(strdup(name));
	free(a);
}

NOINLINE static void wrap_malloc(void)
{
	void *p[3];

	for (int i = 0; i < 3; i++)
		p[i] = keep[7] = malloc(300);
	free(p[0]);
	free(p[1]);
	hold(p[2]);
}

NOINLINE static void wrap_calloc(void)
{
	for (int i = 0; i < 2; i++) {
		void *p = calloc(4, 25);

		keep[6] = p;
		free(p);
	}
}

NOINLINE static void wrap_realloc(void)
{
	void *p = malloc(10);

	keep[5] = p;
	hold(realloc(p, 1000));
	hold(reallocarray(no_block, 5, 20));
}

/* Appends the decimal digits of v at *at. */
static void put_number(char **at, unsigned long v)
{
	char digits[24];
	int n = 0;

	do
		digits[n++] = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	while (n > 0)
		*(*at)++ = digits[--n];
}

static void put_text(char **at, const char *s)
{
	while (*s)
		*(*at)++ = *s++;
}

int main(void)
{
	char line[128], *at = line;

	make_names();
	wrap_malloc();
	wrap_calloc();
	wrap_realloc();
	put_text(&at, "malloc ");
	put_number(&at, n_malloc);
	put_text(&at, ", calloc ");
	put_number(&at, n_calloc);
	put_text(&at, ", realloc ");
	put_number(&at, n_realloc);
	put_text(&at, ", free ");
	put_number(&at, n_free);
	put_text(&at, "\n");
	if (write(1, line, (size_t)(at - line)) != at - line)
		return 1;
	return 4;
}
