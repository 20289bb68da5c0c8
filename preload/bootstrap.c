/*
 * preload/bootstrap.c - a bump allocator over a static arena for the calls
 * that arrive before the real allocator has been resolved (see bootstrap.h).
 *
 * Owns the arena, a private mapping made at its first use.  Blocks are never reused, so memory from the arena is
 * always zero until its user writes it (calloc needs nothing more).  Must
 * never call any allocator and never take a lock.
 */
#include <stdatomic.h>
#include <sys/mman.h>

#include "preload/bootstrap.h"
#include "preload/mem.h"

/* Each block is preceded by this header, which keeps its requested size. */
struct bootstrap_header {
	size_t size_bytes;
	size_t unused;
};

_Atomic uintptr_t bootstrap_arena_base;
static _Atomic size_t bootstrap_used;

/* The arena's address, mapped at the first call: a mapping rather than a
 * static array, because a conservative collector (Boehm's libgc) scans every
 * writable segment of every library at each collection and sizes its heap by
 * what it scans: a 1 MiB array there tripled a libgc program's heap.  0 when
 * the kernel refuses. */
static uint8_t *bootstrap_arena_get(void)
{
	uintptr_t base = atomic_load_explicit(&bootstrap_arena_base, memory_order_acquire);
	uintptr_t none = 0;
	void *p;

	if (base)
		return (uint8_t *)base;
	p = mmap(NULL, BOOTSTRAP_ARENA_BYTES, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	if (atomic_compare_exchange_strong_explicit(&bootstrap_arena_base, &none, (uintptr_t)p,
						    memory_order_acq_rel, memory_order_acquire))
		return p;
	munmap(p, BOOTSTRAP_ARENA_BYTES); /* another thread mapped it first */
	return (uint8_t *)none;
}

void *bootstrap_alloc(size_t size_bytes, size_t align_bytes)
{
	uint8_t *arena = bootstrap_arena_get();
	size_t start, block, end;

	if (!arena)
		return NULL;
	if (align_bytes < 16)
		align_bytes = 16;
	if (align_bytes > 4096 || (align_bytes & (align_bytes - 1)) ||
	    size_bytes > BOOTSTRAP_ARENA_BYTES)
		return NULL;
	start = atomic_load_explicit(&bootstrap_used, memory_order_relaxed);
	do {
		block = (start + sizeof(struct bootstrap_header) + align_bytes - 1) &
			~(align_bytes - 1);
		end = block + ((size_bytes + 15) & ~(size_t)15);
		if (end > BOOTSTRAP_ARENA_BYTES)
			return NULL;
	} while (!atomic_compare_exchange_weak_explicit(&bootstrap_used, &start, end,
							memory_order_relaxed,
							memory_order_relaxed));
	preload_mem_count_static((int64_t)(preload_mem_round(end) - preload_mem_round(start)));
	((struct bootstrap_header *)(arena + block))[-1].size_bytes = size_bytes;
	return arena + block;
}

size_t bootstrap_size(const void *p)
{
	return ((const struct bootstrap_header *)p)[-1].size_bytes;
}
