/*
 * preload/fallback.h - serving calls that are not recorded, and blocks that
 * are not the real allocator's.
 *
 * A call is not recorded while the shim initialises, when it is inert or
 * disabled, when it comes from the shim's own callees, and when a signal
 * handler makes it while its thread is inside the shim.  Those from the
 * shim's callees (own calls, preload/own_call.h) are served by the nested
 * heap; the others are forwarded to the real allocator, or served by the
 * bootstrap arena before the real allocator is known.
 */
#ifndef MPROF_PRELOAD_FALLBACK_H
#define MPROF_PRELOAD_FALLBACK_H

#include <stddef.h>

#include "preload/bootstrap.h"
#include "preload/nested_heap.h"

/* Each behaves like the C function of the same name. */
void *fallback_malloc(size_t size_bytes);
void *fallback_calloc(size_t n, size_t size_bytes);
void fallback_free(void *p);
void *fallback_realloc(void *p, size_t size_bytes);
void *fallback_reallocarray(void *p, size_t n, size_t size_bytes);
int fallback_posix_memalign(void **out, size_t align_bytes, size_t size_bytes);
void *fallback_aligned_alloc(size_t align_bytes, size_t size_bytes);
void *fallback_memalign(size_t align_bytes, size_t size_bytes);
void *fallback_valloc(size_t size_bytes);
void *fallback_pvalloc(size_t size_bytes);

/* Whether p is a block of the shim's own (bootstrap arena or nested heap),
 * which must never reach the real allocator. */
static inline int fallback_owns(const void *p)
{
	return bootstrap_owns(p) || nested_heap_owns(p);
}

/* Releases a block of the shim's own (arena blocks are simply abandoned). */
void fallback_release(void *p);

/* The requested size of a block of the shim's own. */
size_t fallback_size(const void *p);

/*
 * realloc of a block of the shim's own: copies it into a new block (from the
 * nested heap when the caller is an own call, else from the real
 * allocator, or the arena if that is still unknown) and releases the old
 * one.  size 0 frees and returns NULL, as glibc does.  *from_real says
 * whether the new block came from the real allocator (so it can be recorded).
 */
void *fallback_realloc_own(void *p, size_t size_bytes, int *from_real);

#endif
