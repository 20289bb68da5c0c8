/*
 * raising_alloc.c - malloc and free for tests that raise SIGUSR1 from
 * inside themselves, loaded with LD_PRELOAD after mprof's recorder (so
 * the recorder's "real" malloc is this one): a signal handler then runs
 * inside the real allocator's call, with the recorder around it.
 *
 * malloc(RAISING_ALLOC_BYTES) raises once the C library's malloc returned,
 * and free of that block raises once the C library freed it; every other
 * call is the C library's alone (__libc_malloc, __libc_free).  Not
 * thread-safe (one block is remembered).
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stddef.h>

#define RAISING_ALLOC_BYTES 1000

extern void *__libc_malloc(size_t size_bytes);
extern void __libc_free(void *p);

static void *raising_block;

void *malloc(size_t size_bytes)
{
	void *p = __libc_malloc(size_bytes);

	if (size_bytes == RAISING_ALLOC_BYTES && p) {
		raising_block = p;
		raise(SIGUSR1);
	}
	return p;
}

void free(void *p)
{
	__libc_free(p);
	if (p && p == raising_block) {
		raising_block = NULL;
		raise(SIGUSR1);
	}
}
