/*
 * analyze/block_table.c - hash table of live blocks keyed by address (see
 * block_table.h).
 *
 * Owns its bucket array.  Must stay allocation-free per operation apart from
 * doubling the array; the hot path of the report is one insert and one remove
 * per allocation.
 */
#include <errno.h>
#include <stdlib.h>

#include "analyze/block_table.h"

#define BLOCK_TABLE_INITIAL (1u << 12)


int block_table_init(struct block_table *t)
{
	t->buckets = calloc(BLOCK_TABLE_INITIAL, sizeof(*t->buckets));
	t->mask = BLOCK_TABLE_INITIAL - 1;
	t->count = 0;
	return t->buckets ? 0 : -ENOMEM;
}

void block_table_free(struct block_table *t)
{
	free(t->buckets);
	t->buckets = NULL;
	t->mask = 0;
	t->count = 0;
}

static int block_table_grow(struct block_table *t)
{
	size_t old_n = t->mask + 1, n = old_n * 2;
	struct live_block *old = t->buckets, *nb = calloc(n, sizeof(*nb));

	if (!nb)
		return -ENOMEM;
	for (size_t i = 0; i < old_n; i++) {
		size_t j;

		if (!old[i].addr)
			continue;
		j = block_hash(old[i].addr, n - 1);
		while (nb[j].addr)
			j = (j + 1) & (n - 1);
		nb[j] = old[i];
	}
	free(old);
	t->buckets = nb;
	t->mask = n - 1;
	return 0;
}

int block_table_insert(struct block_table *t, const struct live_block *b,
		       struct live_block *replaced)
{
	size_t i;

	/* grow at 3/4 full: with the mixing hash and backward-shift deletion
	 * probes stay short, and a table of N blocks needs 40 * N * 4/3 bytes
	 * instead of 40 * N * 2 (python3 at 551 k live blocks: 129 -> 87 MB) */
	if ((t->count + 1) * 4 > (t->mask + 1) * 3 && block_table_grow(t) < 0)
		return -ENOMEM;
	i = block_hash(b->addr, t->mask);
	while (t->buckets[i].addr) {
		if (t->buckets[i].addr == b->addr) {
			*replaced = t->buckets[i];
			t->buckets[i] = *b;
			return 1;
		}
		i = (i + 1) & t->mask;
	}
	t->buckets[i] = *b;
	t->count++;
	return 0;
}

int block_table_remove(struct block_table *t, uint64_t addr, struct live_block *out)
{
	size_t i = block_hash(addr, t->mask), j;

	if (!addr)
		return 0;
	while (t->buckets[i].addr != addr) {
		if (!t->buckets[i].addr)
			return 0;
		i = (i + 1) & t->mask;
	}
	*out = t->buckets[i];
	/* Backward-shift deletion: move later members of the probe run into
	 * the hole when their home bucket does not lie between hole and them. */
	j = i;
	for (;;) {
		size_t home;

		j = (j + 1) & t->mask;
		if (!t->buckets[j].addr)
			break;
		home = block_hash(t->buckets[j].addr, t->mask);
		if (((j - home) & t->mask) >= ((j - i) & t->mask)) {
			t->buckets[i] = t->buckets[j];
			i = j;
		}
	}
	t->buckets[i].addr = 0;
	t->count--;
	return 1;
}

void block_table_each(const struct block_table *t,
		      void (*fn)(void *ctx, const struct live_block *b), void *ctx)
{
	for (size_t i = 0; i <= t->mask; i++)
		if (t->buckets[i].addr)
			fn(ctx, &t->buckets[i]);
}
