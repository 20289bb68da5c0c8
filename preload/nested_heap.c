/*
 * preload/nested_heap.c - the allocator for the shim's callees (see
 * nested_heap.h): power-of-two size classes from 16 bytes to 64 KiB with
 * free lists, bump allocation from one reserved anonymous region, larger
 * blocks bumped and never reused (they do not occur in practice).  The
 * region is reserved without memory and made read-write as the bump
 * pointer advances, so only what is used counts against RLIMIT_DATA; its
 * size follows RLIMIT_AS (nested_heap.h).
 *
 * Owns the region and its free lists, guarded by one small lock (nested
 * allocations are a handful per thread).  Must never call malloc.
 */
#define _GNU_SOURCE
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>

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

/* Memory is committed in steps of this many bytes (mprotect, RLIMIT_DATA). */
#define NESTED_COMMIT_BYTES (64u << 10)

struct nested_heap_range nested_heap_range __attribute__((aligned(16)));
static size_t nested_used;      /* bytes bumped */
static size_t nested_committed; /* bytes read-write from the base */
static struct nested_free_block *nested_free[NESTED_CLASSES];
static struct preload_lock nested_lock;

static uint32_t nested_class_of(size_t size_bytes)
{
	uint32_t c = 0;

	while (c < NESTED_CLASSES && ((size_t)16 << c) < size_bytes)
		c++;
	return c < NESTED_CLASSES ? c : NESTED_LARGE_CLASS;
}

/* The region's size under an RLIMIT_AS of as_limit_bytes. */
static size_t nested_bytes_for(uint64_t as_limit_bytes)
{
	uint64_t n = as_limit_bytes == RLIM_INFINITY ? NESTED_HEAP_BYTES : as_limit_bytes / 256;

	n = n < NESTED_HEAP_MIN_BYTES ? NESTED_HEAP_MIN_BYTES
	    : n > NESTED_HEAP_BYTES ? NESTED_HEAP_BYTES : n;
	return (size_t)n & ~(size_t)(NESTED_COMMIT_BYTES - 1);
}

/* Reserves the region on first use (no memory: PROT_NONE); lock held.
 * Returns its base or 0. */
static uintptr_t nested_region(void)
{
	uintptr_t base = atomic_load_explicit(&nested_heap_range.base, memory_order_relaxed);
	struct rlimit as;
	size_t bytes;
	void *p;

	if (base)
		return base;
	if (getrlimit(RLIMIT_AS, &as) != 0)
		as.rlim_cur = RLIM_INFINITY;
	bytes = nested_bytes_for(as.rlim_cur);
	p = mmap(NULL, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return 0;
	atomic_store_explicit(&nested_heap_range.base, (uintptr_t)p, memory_order_relaxed);
	atomic_store_explicit(&nested_heap_range.bytes, bytes, memory_order_release);
	return (uintptr_t)p;
}

/* Makes the region read-write up to end_bytes; lock held.  0, or -1 when
 * the kernel refuses (RLIMIT_DATA). */
static int nested_commit(uintptr_t base, size_t end_bytes)
{
	size_t end = (end_bytes + NESTED_COMMIT_BYTES - 1) & ~(size_t)(NESTED_COMMIT_BYTES - 1);

	if (end <= nested_committed)
		return 0;
	if (mprotect((void *)(base + nested_committed), end - nested_committed,
		     PROT_READ | PROT_WRITE) != 0)
		return -1;
	nested_committed = end;
	return 0;
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
	if (nested_used + sizeof(*h) + block >
	    atomic_load_explicit(&nested_heap_range.bytes, memory_order_relaxed) ||
	    nested_commit(base, nested_used + sizeof(*h) + block) < 0)
		return NULL;
	h = (struct nested_header *)(base + nested_used);
	nested_used += sizeof(*h) + block;
	h->size_class = c;
	return h;
}

uint64_t nested_heap_shrink(uint64_t as_limit_bytes)
{
	uintptr_t base;
	size_t bytes, keep;

	preload_lock_take(&nested_lock);
	base = atomic_load_explicit(&nested_heap_range.base, memory_order_relaxed);
	bytes = atomic_load_explicit(&nested_heap_range.bytes, memory_order_relaxed);
	keep = nested_bytes_for(as_limit_bytes);
	if (keep < nested_committed)
		keep = nested_committed;
	if (!base || keep >= bytes) {
		preload_lock_give(&nested_lock);
		return 0;
	}
	/* no block lies past nested_used <= keep: nothing owned moves out */
	atomic_store_explicit(&nested_heap_range.bytes, keep, memory_order_release);
	munmap((void *)(base + keep), bytes - keep);
	preload_lock_give(&nested_lock);
	return bytes - keep;
}

void nested_heap_reserve(void)
{
	preload_lock_take(&nested_lock);
	nested_region();
	preload_lock_give(&nested_lock);
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
