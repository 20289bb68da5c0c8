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

/* Address space of the region without an RLIMIT_AS; under one, a 256th
 * of the limit, at least NESTED_HEAP_MIN_BYTES.  Memory is committed (and
 * counted against RLIMIT_DATA) only as blocks are handed out. */
#define NESTED_HEAP_BYTES (64u << 20)
#define NESTED_HEAP_MIN_BYTES (1u << 20)

/* The region: bytes is 0 until base is set (stored first), and shrinks
 * when the program lowers its RLIMIT_AS (never below the part in use). */
struct nested_heap_range {
	_Atomic uintptr_t base;
	_Atomic size_t bytes;
};
extern struct nested_heap_range nested_heap_range;

/* Whether p lies in the nested heap (never true before its first block).
 * On every free: two loads of one cache line, no branch on the base. */
static inline int nested_heap_owns(const void *p)
{
	size_t bytes = atomic_load_explicit(&nested_heap_range.bytes, memory_order_acquire);
	uintptr_t base = atomic_load_explicit(&nested_heap_range.base, memory_order_relaxed);

	return (uintptr_t)p - base < bytes;
}

/* Reserves the region now if it is not (it is grown with mprotect): before
 * a program's mlockall(MCL_FUTURE), after which a new mapping would be
 * locked and counted against its RLIMIT_MEMLOCK (preload/mlock_watch.c).
 * Takes the heap's lock. */
void nested_heap_reserve(void);

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

/*
 * Gives back the region's address space past what is in use and what
 * as_limit_bytes allows (as at a start under that limit), for a program
 * that lowered its RLIMIT_AS.  Returns the bytes given back.
 */
uint64_t nested_heap_shrink(uint64_t as_limit_bytes);

/* Fork support: the lock is held across fork() and reset in the child (the
 * region itself is copied with the process). */
void nested_heap_fork_prepare(void);
void nested_heap_fork_parent(void);
void nested_heap_fork_child(void);

#endif
