/*
 * preload/nested_heap.c - the allocator for the shim's callees (see
 * nested_heap.h): power-of-two size classes from 16 bytes to 64 KiB with
 * free lists, bump allocation from one reserved anonymous region, larger
 * blocks bumped and never reused (they do not occur in practice).
 *
 * Owns the region and its free lists, guarded by one small lock (nested
 * allocations are a handful per thread).  Must never call malloc.
 */
#define _GNU_SOURCE
#include <string.h>
#include <sys/mman.h>

#include "preload/lock.h"
#include "preload/nested_heap.h"

#define NESTED_CLASSES 13u          /* 16 B .. 64 KiB */
#define NESTED_LARGE_CLASS 0xffu

/* Precedes every block. */
struct nested_header {
	uint32_t size_class;
	uint32_t unused;
	uint64_t size_bytes;
};

struct nested_free_block {
	struct nested_free_block *next;
};

_Atomic uintptr_t nested_heap_base;
static size_t nested_used;
static struct nested_free_block *nested_free[NESTED_CLASSES];
static struct preload_lock nested_lock;

static uint32_t nested_class_of(size_t size_bytes)
{
	uint32_t c = 0;

	while (c < NESTED_CLASSES && ((size_t)16 << c) < size_bytes)
		c++;
	return c < NESTED_CLASSES ? c : NESTED_LARGE_CLASS;
}

/* Maps the region on first use; lock held.  Returns its base or 0. */
static uintptr_t nested_region(void)
{
	uintptr_t base = atomic_load_explicit(&nested_heap_base, memory_order_relaxed);
	void *p;

	if (base)
		return base;
	p = mmap(NULL, NESTED_HEAP_BYTES, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return 0;
	atomic_store_explicit(&nested_heap_base, (uintptr_t)p, memory_order_release);
	return (uintptr_t)p;
}

/* Takes a block of class c (or a large one of size_bytes); lock held. */
static struct nested_header *nested_take(uint32_t c, size_t size_bytes)
{
	uintptr_t base = nested_region();
	size_t block = c == NESTED_LARGE_CLASS ? ((size_bytes + 15) & ~(size_t)15)
					       : (size_t)16 << c;
	struct nested_header *h;

	if (!base)
		return NULL;
	if (c != NESTED_LARGE_CLASS && nested_free[c]) {
		struct nested_free_block *b = nested_free[c];

		nested_free[c] = b->next;
		return (struct nested_header *)b - 1;
	}
	if (nested_used + sizeof(*h) + block > NESTED_HEAP_BYTES)
		return NULL;
	h = (struct nested_header *)(base + nested_used);
	nested_used += sizeof(*h) + block;
	h->size_class = c;
	return h;
}

void *nested_heap_alloc(size_t size_bytes, int zero)
{
	struct nested_header *h;

	if (size_bytes > NESTED_HEAP_BYTES / 4)
		return NULL;
	preload_lock_take(&nested_lock);
	h = nested_take(nested_class_of(size_bytes), size_bytes);
	preload_lock_give(&nested_lock);
	if (!h)
		return NULL;
	h->size_bytes = size_bytes;
	if (zero)
		memset(h + 1, 0, size_bytes);
	return h + 1;
}

void nested_heap_free(void *p)
{
	struct nested_header *h = (struct nested_header *)p - 1;
	struct nested_free_block *b = p;

	if (h->size_class == NESTED_LARGE_CLASS)
		return;
	preload_lock_take(&nested_lock);
	b->next = nested_free[h->size_class];
	nested_free[h->size_class] = b;
	preload_lock_give(&nested_lock);
}

size_t nested_heap_size(const void *p)
{
	return ((const struct nested_header *)p - 1)->size_bytes;
}

void nested_heap_fork_prepare(void)
{
	preload_lock_take(&nested_lock);
}

void nested_heap_fork_parent(void)
{
	preload_lock_give(&nested_lock);
}

void nested_heap_fork_child(void)
{
	preload_lock_reset(&nested_lock);
}
