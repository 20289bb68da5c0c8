/*
 * preload/real.c - resolution of the real allocator behind the shim.
 *
 * Owns the table of real entry points.  Must not call any allocator itself
 * (dlsym may, and is answered from the bootstrap arena).  The most used
 * entries are resolved first so the window in which racing threads fall
 * back to the arena stays as short as possible.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <gnu/libc-version.h>

#include "preload/real.h"

struct real_allocator real;

/* Stores one looked-up symbol with release order (see real_get). */
#define REAL_RESOLVE(field, name) \
	__atomic_store_n(&real.field, (__typeof__(real.field))dlsym(RTLD_NEXT, name), \
			 __ATOMIC_RELEASE)

/* Whether the free found behind the shim lies in the C library itself
 * (gnu_get_libc_version exists only there).  Comparing with __libc_free is
 * not enough: tcmalloc and mimalloc export that name for their own free. */
static int real_free_is_glibc(void)
{
	Dl_info libc, next;

	return real.free && dladdr((void *)gnu_get_libc_version, &libc) &&
	       dladdr((void *)real.free, &next) && libc.dli_fbase == next.dli_fbase;
}

void real_resolve(void)
{
	REAL_RESOLVE(malloc, "malloc");
	REAL_RESOLVE(calloc, "calloc");
	REAL_RESOLVE(free, "free");
	REAL_RESOLVE(realloc, "realloc");
	REAL_RESOLVE(reallocarray, "reallocarray");
	REAL_RESOLVE(posix_memalign, "posix_memalign");
	REAL_RESOLVE(aligned_alloc, "aligned_alloc");
	REAL_RESOLVE(memalign, "memalign");
	REAL_RESOLVE(valloc, "valloc");
	REAL_RESOLVE(pvalloc, "pvalloc");
	REAL_RESOLVE(malloc_usable_size, "malloc_usable_size");
	REAL_RESOLVE(dlclose, "dlclose");
	__atomic_store_n(&real.glibc_chunks, real_free_is_glibc(), __ATOMIC_RELEASE);
}
