/*
 * preload/nested_heap.h - a small allocator, in a region of its own, for
 * the allocations the shim's own callees make (dlopen, the unwinder's
 * dynamic TLS, pthread_setspecific) while the shim is running.
 *
 * Those blocks are not the program's: serving them from the C library would
 * show their later frees (often made by another thread, e.g. when a thread's
 * TLS is released) as frees of blocks never allocated.  Every entry point
 * recognizes a nested block by its address and handles it here.
 */
#ifndef MPROF_PRELOAD_NESTED_HEAP_H
#define MPROF_PRELOAD_NESTED_HEAP_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define NESTED_HEAP_BYTES (64u << 20) /* address space reserved, touched on use */

extern _Atomic uintptr_t nested_heap_base;

/* Whether p lies in the nested heap (never true before its first block). */
static inline int nested_heap_owns(const void *p)
{
	uintptr_t base = atomic_load_explicit(&nested_heap_base, memory_order_relaxed);

	return base && (uintptr_t)p - base < NESTED_HEAP_BYTES;
}

/*
 * Returns size_bytes of memory aligned to 16 (zeroed when zero is set), or
 * NULL when the region is exhausted or cannot be mapped (the caller then
 * uses the real allocator).  Thread-safe; maps the region on first use.
 */
void *nested_heap_alloc(size_t size_bytes, int zero);

/* Releases a nested block (nested_heap_owns(p) must hold). */
void nested_heap_free(void *p);

/* The size requested for nested block p. */
size_t nested_heap_size(const void *p);

/* Fork support: the lock is held across fork() and reset in the child (the
 * region itself is copied with the process). */
void nested_heap_fork_prepare(void);
void nested_heap_fork_parent(void);
void nested_heap_fork_child(void);

#endif
