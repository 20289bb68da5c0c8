/*
 * libc_behind.c - malloc, free, calloc and realloc over the C library's
 * __libc_malloc, __libc_free, __libc_calloc and __libc_realloc, as a
 * library loaded after mprof's recorder (tests/e2e/libc-entry-points.sh
 * puts it behind the recorder in LD_PRELOAD): the recorder's "real"
 * allocator is then this one, and each block it serves must be recorded
 * once, by the recorder's malloc, not again by its __libc_malloc.
 */
#include "libc_entry.h"

void *malloc(size_t size)
{
	return __libc_malloc(size);
}

void free(void *p)
{
	__libc_free(p);
}

void *calloc(size_t n, size_t size)
{
	return __libc_calloc(n, size);
}

void *realloc(void *p, size_t size)
{
	return __libc_realloc(p, size);
}
