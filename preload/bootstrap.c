/*
 * preload/bootstrap.c - a bump allocator over a static arena for the calls
 * that arrive before the real allocator has been resolved (see bootstrap.h).
 *
 * Owns the arena.  Blocks are never reused, so memory from the arena is
 * always zero until its user writes it (calloc needs nothing more).  Must
 * never call any allocator and never take a lock.
 */
#include <stdatomic.h>

#include "preload/bootstrap.h"
#include "preload/mem.h"

/* Each block is preceded by this header, which keeps its requested size. */
struct bootstrap_header {
	size_t size_bytes;
	size_t unused;
};

uint8_t bootstrap_arena[BOOTSTRAP_ARENA_BYTES] PRELOAD_LARGE_BSS __attribute__((aligned(4096)));
static _Atomic size_t bootstrap_used;

void *bootstrap_alloc(size_t size_bytes, size_t align_bytes)
{
	size_t start, block, end;

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
	((struct bootstrap_header *)(bootstrap_arena + block))[-1].size_bytes = size_bytes;
	return bootstrap_arena + block;
}

size_t bootstrap_size(const void *p)
{
	return ((const struct bootstrap_header *)p)[-1].size_bytes;
}
