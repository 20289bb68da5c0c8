/*
 * analyze/block_table.h - the live heap blocks of one process, by address.
 *
 * Open addressing with linear probing and backward-shift deletion (no
 * tombstones), doubled in place (realloc, then a rehash within the array)
 * at half load while it has fewer than 2^17 buckets (4 MiB) and at 3/4 load
 * after, so growing never needs old and new arrays side by side.  Address 0
 * marks an empty bucket: no live block sits at address 0.  Memory grows with
 * the number of live blocks only.
 *
 * Bucket arrays of 2 MiB and more are mappings of their own on huge pages
 * (huge_array.h); when the table is 1/32 of its bucket count short of
 * doubling, a thread faults in the half it will grow into.
 *
 * An entry is 32 bytes, two to a cache line: the hot path is one insert and
 * one remove per allocation, each mostly one cache miss.  The caller keeps
 * whatever does not fit (the allocation's TIME stamp as an index into its own
 * array, a sampling weight other than 1 in a second table).
 */
#ifndef MPROF_ANALYZE_BLOCK_TABLE_H
#define MPROF_ANALYZE_BLOCK_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "analyze/huge_array.h"

struct live_block {
	uint64_t addr;          /* 0: empty bucket */
	uint64_t size_bytes;    /* requested size (caller-defined in other uses) */
	uint64_t alloc_seq;     /* sequence number of the allocation */
	uint32_t stat_index;    /* index of the allocating stack's statistics */
	uint32_t time_index;    /* caller's index of the nearest TIME at or
	                         * before alloc_seq */
};

_Static_assert(sizeof(struct live_block) == 32, "two live blocks per cache line");

struct block_table {
	struct live_block *buckets; /* owned */
	size_t mask;                /* bucket count - 1 (a power of two) */
	size_t count;               /* live blocks */
	size_t reserved;            /* mapped arrays: bytes of address space
	                             * behind buckets (huge_array.h); 0: heap */
	size_t prefault_count;      /* count at which the half the table will
	                             * grow into is faulted in; SIZE_MAX: never */
	struct huge_prefault prefault;
};

/* Home bucket of addr.  Heap addresses are 16-byte aligned and clustered in
 * a few ranges: a full 64-bit mix (murmur3's finalizer) spreads them.  (One
 * multiplication by 2^64 / golden ratio saved 26-29 instructions per event
 * but put blocks of common sizes made in a row, strides of 496, 992 or 3632
 * bytes, into a few long probe runs: reports up to 15x slower.  Any fixed hash
 * of the address taken modulo the bucket count keeps block_table_grow's
 * rule that a block's bucket stays or moves up by the old size.) */
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

/* The live block at addr, or NULL (the pointer is valid until the next
 * insert or remove). */
const struct live_block *block_table_find(const struct block_table *t, uint64_t addr);

/* Iteration: calls fn(ctx, block) for every live block, in no order. */
void block_table_each(const struct block_table *t,
		      void (*fn)(void *ctx, const struct live_block *b), void *ctx);

#endif
