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

struct real_allocator;

/* Each behaves like the C function of the same name; r is the table of the
 * real allocator to forward to (preload/real.h: real, or real_libc for the
 * C library's __libc_ entry points), whose malloc also serves a realloc of
 * a block of the shim's own. */
void *fallback_malloc(const struct real_allocator *r, size_t size_bytes);
void *fallback_calloc(const struct real_allocator *r, size_t n, size_t size_bytes);
void fallback_free(const struct real_allocator *r, void *p);
void *fallback_realloc(const struct real_allocator *r, void *p, size_t size_bytes);
void *fallback_memalign(const struct real_allocator *r, size_t align_bytes, size_t size_bytes);
void *fallback_valloc(const struct real_allocator *r, size_t size_bytes);
void *fallback_pvalloc(const struct real_allocator *r, size_t size_bytes);
/* As above, forwarding to real (the C library has no __libc_ name of
 * these). */
int fallback_posix_memalign(void **out, size_t align_bytes, size_t size_bytes);
void *fallback_aligned_alloc(size_t align_bytes, size_t size_bytes);

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
 * nested heap when the caller is an own call, else from r's malloc, or the
 * arena if that is still unknown) and releases the old one.  size 0 frees
 * and returns NULL, as glibc does.  *from_real says whether the new block
 * came from the real allocator (so it can be recorded).
 */
void *fallback_realloc_own(const struct real_allocator *r, void *p, size_t size_bytes,
			   int *from_real);

#endif
