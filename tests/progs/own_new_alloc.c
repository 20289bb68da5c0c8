/*
 * own_new_alloc.c - a tiny allocator for tests that, as jemalloc, tcmalloc
 * and mimalloc do, defines C++ operator new and delete beside malloc and
 * serves them from its own heap without calling malloc or free.  Loaded
 * with LD_PRELOAD after mprof's recorder (the recorder's "real" malloc is
 * this one) or linked into a program.
 *
 * A bump allocator over one 64 MiB mapping with a 16-byte header holding
 * each block's size; free and delete give nothing back.  Thread-safe
 * (an atomic bump); enough for the short test programs that use it.
 */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#define OWN_ARENA_BYTES (64u << 20)
#define OWN_HEADER_BYTES 16u

static char *own_arena;
static size_t own_used;

/* A block of size_bytes from the arena (16-byte aligned), or NULL. */
static void *own_alloc(size_t size_bytes)
{
	size_t need = OWN_HEADER_BYTES + ((size_bytes + 15u) & ~(size_t)15u), at;
	char *arena = __atomic_load_n(&own_arena, __ATOMIC_ACQUIRE);

	if (!arena) {
		char *fresh = mmap(NULL, OWN_ARENA_BYTES, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		char *none = NULL;

		if (fresh == MAP_FAILED)
			return NULL;
		if (!__atomic_compare_exchange_n(&own_arena, &none, fresh, 0, __ATOMIC_ACQ_REL,
						 __ATOMIC_ACQUIRE))
			munmap(fresh, OWN_ARENA_BYTES);
		arena = __atomic_load_n(&own_arena, __ATOMIC_ACQUIRE);
	}
	at = __atomic_fetch_add(&own_used, need, __ATOMIC_RELAXED);
	if (at + need > OWN_ARENA_BYTES)
		return NULL;
	memcpy(arena + at, &size_bytes, sizeof(size_bytes));
	return arena + at + OWN_HEADER_BYTES;
}

static size_t own_size(const void *p)
{
	size_t size_bytes;

	memcpy(&size_bytes, (const char *)p - OWN_HEADER_BYTES, sizeof(size_bytes));
	return size_bytes;
}

void *malloc(size_t size_bytes)
{
	return own_alloc(size_bytes);
}

void *calloc(size_t n, size_t size_bytes)
{
	size_t total;

	if (__builtin_mul_overflow(n, size_bytes, &total))
		return NULL;
	return own_alloc(total); /* a fresh mapping is zeroed */
}

void *realloc(void *old, size_t size_bytes)
{
	void *p = own_alloc(size_bytes);

	if (p && old) {
		size_t keep = own_size(old);

		memcpy(p, old, keep < size_bytes ? keep : size_bytes);
	}
	return p;
}

void free(void *p)
{
	(void)p;
}

size_t malloc_usable_size(void *p)
{
	return p ? own_size(p) : 0;
}

/* operator new(size_t), new[](size_t) and their deletes, plain and sized:
 * served here, never through malloc and free. */
void *_Znwm(size_t size_bytes)
{
	return own_alloc(size_bytes ? size_bytes : 1);
}

void *_Znam(size_t size_bytes)
{
	return own_alloc(size_bytes ? size_bytes : 1);
}

void _ZdlPv(void *p)
{
	(void)p;
}

void _ZdaPv(void *p)
{
	(void)p;
}

void _ZdlPvm(void *p, size_t size_bytes)
{
	(void)p;
	(void)size_bytes;
}

void _ZdaPvm(void *p, size_t size_bytes)
{
	(void)p;
	(void)size_bytes;
}
