/*
 * preload/bootstrap.h - the static arena that serves allocations made
 * before the real allocator is known.
 *
 * While the shim resolves the C library's allocator with dlsym, dlsym itself
 * (and any other thread racing it) may call calloc or malloc.  Those calls
 * are served from a zeroed arena, mapped at the first such call (not a
 * static array: see bootstrap_arena_get).  Arena blocks are never handed to
 * the real free or realloc: free of one is a no-op and realloc copies it
 * into a real block.
 */
#ifndef MPROF_PRELOAD_BOOTSTRAP_H
#define MPROF_PRELOAD_BOOTSTRAP_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define BOOTSTRAP_ARENA_BYTES (1u << 20)

/* The arena's address; 0 until its first block is handed out. */
extern _Atomic uintptr_t bootstrap_arena_base;

/*
 * Returns size_bytes of zeroed memory aligned to align_bytes (a power of two,
 * at most 4096; smaller values mean 16) from the arena, or NULL when the
 * arena is exhausted.  Thread-safe, lock-free; blocks are never reused.
 */
void *bootstrap_alloc(size_t size_bytes, size_t align_bytes);

/* Whether p points into the arena (NULL does not). */
static inline int bootstrap_owns(const void *p)
{
	uintptr_t base = atomic_load_explicit(&bootstrap_arena_base, memory_order_relaxed);

	return base && (uintptr_t)p - base < BOOTSTRAP_ARENA_BYTES;
}

/* The size that was requested for arena block p (bootstrap_owns(p) must hold). */
size_t bootstrap_size(const void *p);

#endif
