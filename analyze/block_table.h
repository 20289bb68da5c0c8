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
