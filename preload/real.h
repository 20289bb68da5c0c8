/*
 * preload/real.h - the C library's allocator entry points (and dlclose), as
 * found with dlsym(RTLD_NEXT) behind the shim's own definitions.
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
};

extern struct real_allocator real;

/* Reads one entry of the table while another thread may be filling it. */
#define real_get(fn) __atomic_load_n(&real.fn, __ATOMIC_ACQUIRE)

/*
 * Looks every entry up with dlsym(RTLD_NEXT).  Called by the initializing
 * thread only; the calloc/malloc calls dlsym makes meanwhile are served by
 * the bootstrap arena.  Entries that cannot be found stay NULL.
 */
void real_resolve(void);

#endif
