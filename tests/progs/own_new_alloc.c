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
 * Defines the 20 forms of new and delete but the aligned nothrow ones
 * (which the C++ library makes of the aligned new); a new that fails
 * throws std::bad_alloc (through the C++ library's helper, when the
 * program has one), its nothrow form returns NULL; the plain deletes call
 * free.
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

/* A block of size_bytes from the arena at a multiple of align_bytes (a
 * power of two, 16 or more), or NULL. */
static void *own_alloc_aligned(size_t size_bytes, size_t align_bytes)
{
	size_t need, at;
	char *arena = __atomic_load_n(&own_arena, __ATOMIC_ACQUIRE), *p;

	if (size_bytes > OWN_ARENA_BYTES || align_bytes > OWN_ARENA_BYTES)
		return NULL;
	need = OWN_HEADER_BYTES + align_bytes - 16u + ((size_bytes + 15u) & ~(size_t)15u);

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
	p = (char *)(((uintptr_t)arena + at + OWN_HEADER_BYTES + align_bytes - 1) &
		     ~(uintptr_t)(align_bytes - 1));
	memcpy(p - OWN_HEADER_BYTES, &size_bytes, sizeof(size_bytes));
	return p;
}

/* A block of size_bytes from the arena (16-byte aligned), or NULL. */
static void *own_alloc(size_t size_bytes)
{
	return own_alloc_aligned(size_bytes, 16u);
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

/* std::__throw_bad_alloc of the C++ library, when the program has one. */
extern void _ZSt17__throw_bad_allocv(void) __attribute__((weak, noreturn));

/* A block for a new that throws on failure. */
static void *own_new(size_t size_bytes, size_t align_bytes)
{
	void *p = own_alloc_aligned(size_bytes ? size_bytes : 1, align_bytes < 16u ? 16u : align_bytes);

	if (!p && _ZSt17__throw_bad_allocv)
		_ZSt17__throw_bad_allocv();
	return p;
}

/* operator new and new[], plain, nothrow and aligned, and their deletes:
 * served here, never through malloc and free. */
void *_Znwm(size_t size_bytes)
{
	return own_new(size_bytes, 16u);
}

void *_Znam(size_t size_bytes)
{
	return own_new(size_bytes, 16u);
}

void *_ZnwmRKSt9nothrow_t(size_t size_bytes, const void *nothrow)
{
	(void)nothrow;
	return own_alloc(size_bytes ? size_bytes : 1);
}

void *_ZnamRKSt9nothrow_t(size_t size_bytes, const void *nothrow)
{
	(void)nothrow;
	return own_alloc(size_bytes ? size_bytes : 1);
}

void *_ZnwmSt11align_val_t(size_t size_bytes, size_t align_bytes)
{
	return own_new(size_bytes, align_bytes);
}

void *_ZnamSt11align_val_t(size_t size_bytes, size_t align_bytes)
{
	return own_new(size_bytes, align_bytes);
}

#ifndef OWN_NEW_ONLY /* built with it: new without delete, which the C++
			 * library's calls free for */
/* The deletes give nothing back: their parameters go unused. */
#pragma GCC diagnostic ignored "-Wunused-parameter"
#define OWN_DELETE(name, ...) \
	void name(void *p, ##__VA_ARGS__) \
	{ \
		(void)p; \
	}

/* The plain deletes call free through the PLT, as Debian's jemalloc's do:
 * a recorder ahead of this library must not record that free besides the
 * delete. */
void _ZdlPv(void *p)
{
	free(p);
}

void _ZdaPv(void *p)
{
	free(p);
}

OWN_DELETE(_ZdlPvm, size_t size_bytes)
OWN_DELETE(_ZdaPvm, size_t size_bytes)
OWN_DELETE(_ZdlPvRKSt9nothrow_t, const void *nothrow)
OWN_DELETE(_ZdaPvRKSt9nothrow_t, const void *nothrow)
OWN_DELETE(_ZdlPvSt11align_val_t, size_t align_bytes)
OWN_DELETE(_ZdaPvSt11align_val_t, size_t align_bytes)
OWN_DELETE(_ZdlPvmSt11align_val_t, size_t size_bytes, size_t align_bytes)
OWN_DELETE(_ZdaPvmSt11align_val_t, size_t size_bytes, size_t align_bytes)
#endif
