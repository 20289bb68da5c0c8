/*
 * preload/real.h - the C library's allocator entry points (and dlclose), as
 * found with dlsym(RTLD_NEXT) behind the shim's own definitions (free and
 * realloc are a foreign allocator's when one is loaded ahead of the shim),
 * and its internal ones (__libc_malloc and kin).
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
	/* 1 when realloc (free) is a foreign one that calls the C library's
	 * __libc_realloc (__libc_free), whose wrapper in the shim records
	 * the call: the shim's entry points that forward to it do not. */
	int realloc_over_libc, free_over_libc;
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
 * lacks (reallocarray in jemalloc, free_sized) still run: makes the realloc
 * and free they call the foreign ones, as the C library's reallocarray
 * reaches the foreign realloc through its PLT, and stops reading glibc
 * chunk headers of its blocks, and sets the table's foreign flag (and
 * realloc_over_libc, free_over_libc).  Called by the initializing thread.
 */
void real_use_foreign(void);

#endif
