/*
 * analyze/block_table.h - the live heap blocks of one process, by address.
 *
 * Open addressing with linear probing and backward-shift deletion (no
 * tombstones), grown at 1/2 load.  Address 0 marks an empty bucket: no live
 * block sits at address 0.  Memory grows with the number of live blocks only.
 */
#ifndef MPROF_ANALYZE_BLOCK_TABLE_H
#define MPROF_ANALYZE_BLOCK_TABLE_H

#include <stddef.h>
#include <stdint.h>

struct live_block {
	uint64_t addr;          /* 0: empty bucket */
	uint64_t size_bytes;    /* requested size */
	uint64_t alloc_seq;     /* sequence number of the allocation */
	uint64_t alloc_time_ns; /* nearest TIME at or before alloc_seq */
	uint32_t stat_index;    /* index of the allocating stack's statistics */
	uint32_t weight;        /* sampling weight */
};

struct block_table {
	struct live_block *buckets; /* owned */
	size_t mask;                /* bucket count - 1 (a power of two) */
	size_t count;               /* live blocks */
};

/* Home bucket of addr.  Heap addresses are 16-byte aligned and clustered in
 * a few ranges: a full 64-bit mix (murmur3's finalizer) spreads them. */
static inline size_t block_hash(uint64_t addr, size_t mask)
{
	uint64_t h = addr >> 4;

	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	return (size_t)h & mask;
}

/* Starts loading the bucket of addr into the cache: with many live blocks
 * the table outgrows the caches and every lookup is a cache miss; callers
 * that know upcoming addresses hide that latency. */
static inline void block_table_prefetch(const struct block_table *t, uint64_t addr)
{
	const struct live_block *b = &t->buckets[block_hash(addr, t->mask)];

#if defined(__x86_64__) || defined(__i386__)
	/* gcc 12 drops __builtin_prefetch here (measured: no instruction) */
	__asm__ volatile("prefetcht0 %0" : : "m"(*(const char *)b));
#else
	__builtin_prefetch(b);
#endif
}

/* Returns 0 or -ENOMEM. */
int block_table_init(struct block_table *t);
void block_table_free(struct block_table *t);

/*
 * Inserts b (b->addr != 0).  When a block with that address is already live,
 * copies it to *replaced, overwrites it and returns 1; otherwise returns 0.
 * Returns -ENOMEM when the table cannot grow (nothing inserted).
 */
int block_table_insert(struct block_table *t, const struct live_block *b,
		       struct live_block *replaced);

/* Removes the block at addr, copying it to *out.  Returns 1 when found,
 * 0 when no live block has that address. */
int block_table_remove(struct block_table *t, uint64_t addr, struct live_block *out);

/* Iteration: calls fn(ctx, block) for every live block, in no order. */
void block_table_each(const struct block_table *t,
		      void (*fn)(void *ctx, const struct live_block *b), void *ctx);

#endif
