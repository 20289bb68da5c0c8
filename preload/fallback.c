/*
 * preload/fallback.c - the unrecorded path of every entry point (see
 * fallback.h).
 *
 * Owns no state.  Must never hand a block of the shim's own (bootstrap
 * arena, nested heap) to the real allocator, and never call the program's
 * own malloc.  Calls made by the shim's own calls (preload/own_call.h) are
 * the profiler's memory, from the nested heap, and not counted; every
 * other call here is the program's and is counted as unrecorded while the
 * shim initialises or records, a signal handler's that interrupted the
 * shim included.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "preload/fallback.h"
#include "preload/own_call.h"
#include "preload/process.h"
#include "preload/real.h"

#define FALLBACK_PAGE_BYTES 4096u

void fallback_release(void *p)
{
	if (nested_heap_owns(p))
		nested_heap_free(p);
}

size_t fallback_size(const void *p)
{
	return nested_heap_owns(p) ? nested_heap_size(p) : bootstrap_size(p);
}

void *fallback_malloc(const struct real_allocator *r, size_t size_bytes)
{
	void *(*fn)(size_t) = real_get_from(r, malloc);
	void *p;

	if (own_call_active() && (p = nested_heap_alloc(size_bytes, 0)))
		return p;
	preload_count_unrecorded(0);
	return fn ? fn(size_bytes) : bootstrap_alloc(size_bytes, 16);
}

void *fallback_calloc(const struct real_allocator *r, size_t n, size_t size_bytes)
{
	void *(*fn)(size_t, size_t) = real_get_from(r, calloc);
	void *p;

	if (size_bytes && n > SIZE_MAX / size_bytes) {
		errno = ENOMEM;
		return NULL;
	}
	if (own_call_active() && (p = nested_heap_alloc(n * size_bytes, 1)))
		return p;
	preload_count_unrecorded(0);
	if (fn)
		return fn(n, size_bytes);
	return bootstrap_alloc(n * size_bytes, 16); /* the arena is never reused: zero */
}

void fallback_free(const struct real_allocator *r, void *p)
{
	void (*fn)(void *) = real_get_from(r, free);

	if (!p)
		return;
	if (fallback_owns(p)) {
		fallback_release(p);
		return;
	}
	preload_count_unrecorded(1);
	if (fn)
		fn(p);
}

void *fallback_realloc_own(const struct real_allocator *r, void *p, size_t size_bytes,
			   int *from_real)
{
	void *(*fn)(size_t) = real_get_from(r, malloc);
	size_t old_bytes = fallback_size(p);
	void *q = NULL;

	*from_real = 0;
	if (size_bytes == 0) {
		fallback_release(p);
		return NULL;
	}
	if (own_call_active())
		q = nested_heap_alloc(size_bytes, 0);
	if (!q && fn) {
		q = fn(size_bytes);
		*from_real = q != NULL;
	}
	if (!q && !fn)
		q = bootstrap_alloc(size_bytes, 16);
	if (!q)
		return NULL;
	memcpy(q, p, old_bytes < size_bytes ? old_bytes : size_bytes);
	fallback_release(p);
	return q;
}

void *fallback_realloc(const struct real_allocator *r, void *p, size_t size_bytes)
{
	void *(*fn)(void *, size_t) = real_get_from(r, realloc);
	int from_real;

	if (fallback_owns(p))
		return fallback_realloc_own(r, p, size_bytes, &from_real);
	if (!p)
		return fallback_malloc(r, size_bytes);
	preload_count_unrecorded(0);
	return fn ? fn(p, size_bytes) : NULL;
}

/* A nested block when the caller is an own call and 16-byte alignment is
 * enough; NULL otherwise. */
static void *fallback_nested_aligned(size_t align_bytes, size_t size_bytes)
{
	if (align_bytes > 16 || !own_call_active())
		return NULL;
	return nested_heap_alloc(size_bytes, 0);
}

int fallback_posix_memalign(void **out, size_t align_bytes, size_t size_bytes)
{
	int (*fn)(void **, size_t, size_t) = real_get(posix_memalign);
	void *p;

	if (align_bytes % sizeof(void *) || (align_bytes & (align_bytes - 1)))
		return EINVAL;
	if ((p = fallback_nested_aligned(align_bytes, size_bytes))) {
		*out = p;
		return 0;
	}
	preload_count_unrecorded(0);
	if (fn)
		return fn(out, align_bytes, size_bytes);
	p = bootstrap_alloc(size_bytes, align_bytes);
	if (!p)
		return ENOMEM;
	*out = p;
	return 0;
}

void *fallback_aligned_alloc(size_t align_bytes, size_t size_bytes)
{
	void *(*fn)(size_t, size_t) = real_get(aligned_alloc);
	void *p;

	if ((p = fallback_nested_aligned(align_bytes, size_bytes)))
		return p;
	preload_count_unrecorded(0);
	return fn ? fn(align_bytes, size_bytes) : bootstrap_alloc(size_bytes, align_bytes);
}

void *fallback_memalign(const struct real_allocator *r, size_t align_bytes, size_t size_bytes)
{
	void *(*fn)(size_t, size_t) = real_get_from(r, memalign);
	void *p;

	if ((p = fallback_nested_aligned(align_bytes, size_bytes)))
		return p;
	preload_count_unrecorded(0);
	return fn ? fn(align_bytes, size_bytes) : bootstrap_alloc(size_bytes, align_bytes);
}

void *fallback_valloc(const struct real_allocator *r, size_t size_bytes)
{
	void *(*fn)(size_t) = real_get_from(r, valloc);

	preload_count_unrecorded(0);
	return fn ? fn(size_bytes) : bootstrap_alloc(size_bytes, FALLBACK_PAGE_BYTES);
}

void *fallback_pvalloc(const struct real_allocator *r, size_t size_bytes)
{
	void *(*fn)(size_t) = real_get_from(r, pvalloc);

	preload_count_unrecorded(0);
	return fn ? fn(size_bytes)
		  : bootstrap_alloc((size_bytes + FALLBACK_PAGE_BYTES - 1) &
					    ~(size_t)(FALLBACK_PAGE_BYTES - 1),
				    FALLBACK_PAGE_BYTES);
}
