/*
 * analyze/aggregate/young_blocks.h - the live blocks that the decoder saw freed again
 * soon (alloc_event.h, ALLOC_EV_PAIRED), kept apart from the block table.
 *
 * The reader pairs 67% of the blocks of bench/bench.py's python3 trace that
 * way (event_stream.c), 91% of sqlite3's.  In the block table
 * (block_table.h, 12 MiB for python3's) each of them cost an insertion and
 * a removal at a random place, the aggregation's largest cost; here they
 * cost a few instructions in 8 KiB that stay in the first-level cache, and
 * the block table one lookup (an allocation at an address it still holds
 * replaces that block, as it would there).  The aggregation (aggregate.c)
 * keeps the two tables disjoint by address and looks in both, so the
 * blocks live are the same whichever table holds them.
 *
 * A fixed array, never allocated or grown: open addressing with linear
 * probing and backward-shift deletion (no tombstones), at most half full;
 * when it is full, the caller puts the block into the block table instead.
 * Address 0 marks an empty bucket.
 */
#ifndef MPROF_ANALYZE_YOUNG_BLOCKS_H
#define MPROF_ANALYZE_YOUNG_BLOCKS_H

#include <stdbool.h>
#include <stdint.h>

#include "analyze/aggregate/block_table.h"

#define YOUNG_BUCKET_BITS 8u
#define YOUNG_BUCKETS (1u << YOUNG_BUCKET_BITS)
#define YOUNG_MAX (YOUNG_BUCKETS / 2)   /* blocks held at most */

struct young_blocks {
	struct live_block b[YOUNG_BUCKETS]; /* addr 0: empty */
	unsigned count;
};

/* Home bucket of addr (16-byte aligned): Fibonacci hashing of addr / 16. */
static inline unsigned young_home(uint64_t addr)
{
	return (unsigned)(((addr >> 4) * 0x9e3779b97f4a7c15ull) >> (64 - YOUNG_BUCKET_BITS));
}

/* Adds b (b->addr != 0, not held yet).  Returns false, adding nothing, when
 * YOUNG_MAX blocks are held. */
static inline bool young_insert(struct young_blocks *y, const struct live_block *b)
{
	unsigned i = young_home(b->addr);

	if (y->count >= YOUNG_MAX)
		return false;
	while (y->b[i].addr)
		i = (i + 1) & (YOUNG_BUCKETS - 1);
	y->b[i] = *b;
	y->count++;
	return true;
}

/* Removes the block at addr, copying it to *out.  Returns true when it was
 * held. */
static inline bool young_remove(struct young_blocks *y, uint64_t addr, struct live_block *out)
{
	unsigned i = young_home(addr), j;

	if (!addr)
		return false;
	while (y->b[i].addr != addr) {
		if (!y->b[i].addr)
			return false;
		i = (i + 1) & (YOUNG_BUCKETS - 1);
	}
	*out = y->b[i];
	/* backward shift: a later block of the run moves into the hole unless
	 * its home lies cyclically after the hole, up to it */
	for (j = (i + 1) & (YOUNG_BUCKETS - 1); y->b[j].addr; j = (j + 1) & (YOUNG_BUCKETS - 1)) {
		unsigned home = young_home(y->b[j].addr);

		if (((j - home) & (YOUNG_BUCKETS - 1)) >= ((j - i) & (YOUNG_BUCKETS - 1))) {
			y->b[i] = y->b[j];
			i = j;
		}
	}
	y->b[i].addr = 0;
	y->count--;
	return true;
}

#endif
