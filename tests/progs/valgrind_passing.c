/*
 * valgrind_passing.c - allocator calls that a Valgrind tool does not
 * redirect to its own allocator, made from 12 threads at once, for a run
 * of memcheck under mprof (tests/e2e/under-valgrind.sh): memcheck
 * replaces malloc, free, calloc, realloc, memalign, posix_memalign,
 * aligned_alloc, valloc and malloc_usable_size of every module, so the
 * recorder's reallocarray, free_sized, free_aligned_sized and __libc_
 * entry points and the pool API (include/mprof.h) are reached, and their
 * blocks are freed through free, which is not.  (memcheck's pvalloc ends
 * the program, with or without mprof: not called.)
 *
 * Expected facts, per thread (12): reallocarray(NULL, 4, 25) grown by
 * reallocarray to 4 x 50, freed; malloc(64) freed
 * with free_sized (with free where the C library has none);
 * aligned_alloc(64, 128) freed with free_aligned_sized (free where it
 * has none); __libc_malloc(32) freed with __libc_free; __libc_calloc(3,
 * 16) grown by __libc_realloc to 96 bytes, freed with free; a pool
 * block: mprof_pool_alloc of a 40-byte piece of a static array, never
 * freed by the pool.  Nothing is leaked.
 * stdout: "valgrind_passing done\n"
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mprof.h"

#define THREADS 12

void *__libc_malloc(size_t size_bytes);
void *__libc_calloc(size_t n, size_t size_bytes);
void *__libc_realloc(void *p, size_t size_bytes);
void __libc_free(void *p);

/* C23's, which glibc 2.36 lacks: the recorder's when it is loaded (weak
 * references, not dlsym, whose failure makes an allocation of its own). */
extern void free_sized(void *p, size_t size_bytes) __attribute__((weak));
extern void free_aligned_sized(void *p, size_t align_bytes, size_t size_bytes)
	__attribute__((weak));

static char pool[THREADS][64];
static pthread_barrier_t barrier;

static void *worker(void *arg)
{
	char *pool_piece = arg;
	char *p;

	pthread_barrier_wait(&barrier);
	p = reallocarray(NULL, 4, 25);
	p = reallocarray(p, 4, 50);
	memset(p, 1, 200);
	free(p);
	p = malloc(64);
	memset(p, 3, 64);
	if (free_sized)
		free_sized(p, 64);
	else
		free(p);
	p = aligned_alloc(64, 128);
	memset(p, 4, 128);
	if (free_aligned_sized)
		free_aligned_sized(p, 64, 128);
	else
		free(p);
	p = __libc_malloc(32);
	memset(p, 5, 32);
	__libc_free(p);
	p = __libc_calloc(3, 16);
	p = __libc_realloc(p, 96);
	memset(p, 6, 96);
	free(p);
	mprof_pool_alloc(pool_piece, 40);
	return NULL;
}

int main(void)
{
	pthread_t tids[THREADS];

	pthread_barrier_init(&barrier, NULL, THREADS);
	for (int i = 0; i < THREADS; i++)
		if (pthread_create(&tids[i], NULL, worker, pool[i]) != 0)
			return 1;
	for (int i = 0; i < THREADS; i++)
		pthread_join(tids[i], NULL);
	puts("valgrind_passing done");
	return 0;
}
