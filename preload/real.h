/*
 * preload/real.h - the C library's allocator entry points (and dlclose), as
 * found with dlsym(RTLD_NEXT) behind the shim's own definitions, its
 * internal ones (__libc_malloc and kin), and the free and realloc of a
 * foreign allocator loaded ahead of the shim.
 *
 * The initializing thread fills the table once; other threads read a
 * pointer with real_get() before init is known to be complete, and plainly
 * once they have seen the READY phase (which is published after the table).
 */
#ifndef MPROF_PRELOAD_REAL_H
#define MPROF_PRELOAD_REAL_H

#include <stddef.h>

struct real_allocator {
	void *(*malloc)(size_t);
	void *(*calloc)(size_t, size_t);
	void (*free)(void *);
	void *(*realloc)(void *, size_t);
	void *(*reallocarray)(void *, size_t, size_t);
	int (*posix_memalign)(void **, size_t, size_t);
	void *(*aligned_alloc)(size_t, size_t);
	void *(*memalign)(size_t, size_t);
	void *(*valloc)(size_t);
	void *(*pvalloc)(size_t);
	size_t (*malloc_usable_size)(void *);
	int (*dlclose)(void *);
	/* 1 when the real free is the C library's own (glibc's, not one of
	 * another allocator loaded ahead of it): then the word before a block
	 * holds its chunk size in bytes, with flag bits in the low 3 bits
	 * (glibc malloc/malloc.c, "malloc_chunk details"). */
	int glibc_chunks;
	/* 1 when malloc is a foreign allocator's (real_use_foreign ran): the
	 * C library's modules are bound to it too, not passing the shim. */
	int foreign;
	/* The realloc and free of a foreign allocator ahead of the shim
	 * (real_use_foreign), or NULL: the shim's entry points that it does
	 * not define (reallocarray, free_sized, free_aligned_sized) forward
	 * to them unrecorded, since its blocks are not the C library's.  If
	 * that allocator forwards in turn (to __libc_realloc, or to the next
	 * realloc, the shim's), the shim records the call there. */
	void *(*foreign_realloc)(void *, size_t);
	void (*foreign_free)(void *);
	/* 1 while a foreign malloc that the shim warned it cannot record has
	 * not been seen calling the shim's malloc (preload/init.h,
	 * preload_init_foreign_forwards). */
	int foreign_forward_unseen;
};

extern struct real_allocator real;

/*
 * The C library's internal entry points behind the shim's wrappers of them
 * (interpose.c): malloc, calloc, free, realloc, memalign, valloc and pvalloc
 * hold __libc_malloc ... __libc_pvalloc, as found with dlsym(RTLD_NEXT); the
 * other entries stay 0.  Never a foreign allocator's: a program's own malloc
 * that calls __libc_malloc reaches the C library through these.
 */
extern struct real_allocator real_libc;

/* Reads one entry of table (real or real_libc) while another thread may be
 * filling it. */
#define real_get_from(table, fn) __atomic_load_n(&(table)->fn, __ATOMIC_ACQUIRE)
/* real_get_from(&real, fn). */
#define real_get(fn) real_get_from(&real, fn)

/* glibc's chunk-header flag of a block served by mmap. */
#define REAL_GLIBC_IS_MMAPPED 2u

/*
 * Chunk size in bytes of block p (live, from the real allocator), read from
 * glibc's chunk header, or 0 when the real allocator is not glibc's or p was
 * served by mmap.  One load of the word free() is about to read anyway;
 * malloc_usable_size also reads the next chunk's header, which cost
 * ~30 ns a free on a program freeing old blocks (measured).
 */
static inline size_t real_chunk_bytes(const void *p)
{
	size_t word;

	if (!real.glibc_chunks)
		return 0;
	word = ((const size_t *)p)[-1];
	return (word & REAL_GLIBC_IS_MMAPPED) ? 0 : word & ~(size_t)7;
}

/*
 * Looks every entry of real and real_libc up with dlsym(RTLD_NEXT).  Called
 * by the initializing thread only; the calloc/malloc calls dlsym makes
 * meanwhile are served by the bootstrap arena.  Entries that cannot be
 * found stay NULL.
 */
void real_resolve(void);

/*
 * When the real allocator behind the shim (an entry of real, before
 * real_use_foreign) is not the C library but a module loaded after the
 * shim, points that module's calls of the C library's __libc_ entry points
 * straight at real_libc's (import_bind.h): its malloc written over
 * __libc_malloc was recorded by the shim's malloc, and the shim's
 * __libc_malloc would record the block again.  Called by the initializing
 * thread, after real_resolve; never allocates.
 */
void real_route_behind(void);

/*
 * The definition of allocator entry point name that the program's own calls
 * reach when it is not the shim's: a foreign allocator loaded ahead of the
 * shim, or the program's own.  NULL when it is the shim's, or the canonical
 * address of a non-PIE program's PLT stub (which jumps to the shim).  Sets
 * *map to the module defining it.  May call dlsym (answered from the
 * bootstrap arena); not for the allocation path.
 */
struct link_map;
void *real_foreign_definition(const char *name, struct link_map **map);

/*
 * With a foreign malloc ahead of the shim, the shim's entry points that it
 * lacks (reallocarray in jemalloc, free_sized) still run: sets
 * foreign_realloc and foreign_free to its realloc and free, which they
 * call, as the C library's reallocarray reaches the foreign realloc
 * through its PLT; stops reading glibc chunk headers; sets the foreign
 * flag.  The entries of real stay the C library's: the shim's own malloc,
 * free, realloc ... are then reached only when the foreign one forwards to
 * the next definition (dlsym(RTLD_NEXT), which finds the shim), and that
 * caller wants the C library's (the foreign free would call the shim's
 * again, without end).  Called by the initializing thread.
 */
void real_use_foreign(void);

#endif
