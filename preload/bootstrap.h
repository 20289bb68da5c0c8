/*
 * preload/bootstrap.h - the static arena that serves allocations made
 * before the real allocator is known.
 *
 * While the shim resolves the C library's allocator with dlsym, dlsym itself
 * (and any other thread racing it) may call calloc or malloc.  Those calls
 * are served from a static, zeroed arena.  Arena blocks are never handed to
 * the real free or realloc: free of one is a no-op and realloc copies it
 * into a real block.
 */
#ifndef MPROF_PRELOAD_BOOTSTRAP_H
#define MPROF_PRELOAD_BOOTSTRAP_H

#include <stddef.h>
#include <stdint.h>

#define BOOTSTRAP_ARENA_BYTES (1u << 20)

extern uint8_t bootstrap_arena[BOOTSTRAP_ARENA_BYTES];

/*
 * Returns size_bytes of zeroed memory aligned to align_bytes (a power of two,
 * at most 4096; smaller values mean 16) from the arena, or NULL when the
 * arena is exhausted.  Thread-safe, lock-free; blocks are never reused.
 */
void *bootstrap_alloc(size_t size_bytes, size_t align_bytes);

/* Whether p points into the arena (NULL does not). */
static inline int bootstrap_owns(const void *p)
{
	return (uintptr_t)p - (uintptr_t)bootstrap_arena < BOOTSTRAP_ARENA_BYTES;
}

/* The size that was requested for arena block p (bootstrap_owns(p) must hold). */
size_t bootstrap_size(const void *p);

#endif
