/*
 * bench/noop_shim.c - a do-nothing LD_PRELOAD shim: interposes malloc, free,
 * calloc and realloc and forwards them to the C library.  The benchmark runs
 * it to measure the floor of interposition (what any preload profiler pays
 * before it records anything).  Not installed; not part of mprof.
 *
 * dlsym may call calloc before the real one is known: that first call is
 * served from a small static buffer that is never freed.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <string.h>

static void *(*real_malloc)(size_t);
static void (*real_free)(void *);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);
static _Alignas(16) char early[4096];
static size_t early_used;
static int resolving;

static void resolve(void)
{
	resolving = 1;
	real_calloc = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "calloc");
	real_malloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "malloc");
	real_free = (void (*)(void *))dlsym(RTLD_NEXT, "free");
	real_realloc = (void *(*)(void *, size_t))dlsym(RTLD_NEXT, "realloc");
	resolving = 0;
}

static int is_early(void *p)
{
	return (char *)p >= early && (char *)p < early + sizeof(early);
}

void *malloc(size_t n)
{
	if (!real_malloc)
		resolve();
	return real_malloc(n);
}

void *calloc(size_t n, size_t s)
{
	if (!real_calloc && !resolving)
		resolve();
	if (!real_calloc) {
		/* inside dlsym: hand out zeroed static memory */
		size_t want = (n * s + 15) & ~(size_t)15;

		if (early_used + want > sizeof(early))
			return NULL;
		early_used += want;
		return early + early_used - want;
	}
	return real_calloc(n, s);
}

void free(void *p)
{
	if (!p || is_early(p))
		return;
	if (!real_free)
		resolve();
	real_free(p);
}

void *realloc(void *p, size_t n)
{
	if (!real_realloc)
		resolve();
	if (is_early(p)) {
		void *q = real_malloc(n);

		if (q)
			memcpy(q, p, n < 64 ? n : 64);
		return q;
	}
	return real_realloc(p, n);
}
