/*
 * next_wrap_lib.c - malloc and free (and calloc and realloc with
 * -DNEXT_WRAP_ALL) that count their calls and forward to the next
 * definition, found with dlsym(RTLD_NEXT) at the first call (the pattern of
 * counting and debug wrappers); calloc and realloc resolve theirs in a
 * constructor, or at their first call if one comes before.  Linked into tests/progs/
 * next_wrap.c's program, or built as a library it links (see next_wrap.h).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>

#include "next_wrap.h"

static void *(*next_malloc)(size_t);
static void (*next_free)(void *);
static unsigned long counts[4];

static void count(enum next_wrap_fn fn)
{
	__atomic_fetch_add(&counts[fn], 1, __ATOMIC_RELAXED);
}

unsigned long next_wrap_count(enum next_wrap_fn fn)
{
	return __atomic_load_n(&counts[fn], __ATOMIC_RELAXED);
}

void *malloc(size_t size)
{
	if (!next_malloc)
		next_malloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "malloc");
	count(NEXT_WRAP_MALLOC);
	return next_malloc(size);
}

void free(void *p)
{
	if (!next_free)
		next_free = (void (*)(void *))dlsym(RTLD_NEXT, "free");
	if (p)
		count(NEXT_WRAP_FREE);
	next_free(p);
}

#ifdef NEXT_WRAP_ALL
static void *(*next_calloc)(size_t, size_t);
static void *(*next_realloc)(void *, size_t);
static int resolving;

/* Resolves calloc's and realloc's next definitions, at the first call of
 * either or in the constructor, whichever comes first. */
static void next_wrap_resolve(void)
{
	resolving = 1;
	next_calloc = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "calloc");
	next_realloc = (void *(*)(void *, size_t))dlsym(RTLD_NEXT, "realloc");
	resolving = 0;
}

__attribute__((constructor)) static void next_wrap_start(void)
{
	if (!next_calloc)
		next_wrap_resolve();
}

void *calloc(size_t n, size_t size)
{
	if (resolving)
		return NULL; /* dlsym's own call: it copes */
	if (!next_calloc)
		next_wrap_resolve();
	count(NEXT_WRAP_CALLOC);
	return next_calloc(n, size);
}

void *realloc(void *p, size_t size)
{
	if (!next_realloc)
		next_wrap_resolve();
	count(NEXT_WRAP_REALLOC);
	return next_realloc(p, size);
}
#endif
