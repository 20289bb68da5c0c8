/*
 * analyze/block_table.c - hash table of live blocks keyed by address (see
 * block_table.h).
 *
 * Owns its bucket array.  Must stay allocation-free per operation apart from
 * doubling the array; the hot path of the report is one insert and one remove
 * per allocation.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/block_table.h"
#include "analyze/huge_array.h"

#define BLOCK_TABLE_INITIAL (1u << 12)
/* Tables smaller than this (4 MiB) grow at half load: block_table_full */
#define BLOCK_TABLE_HALF_BUCKETS (1u << 17)
/* The next half is faulted in this fraction of the bucket count before
 * the table doubles (block_table_plan_prefault). */
#define BLOCK_TABLE_PREFAULT_BAND 32

/*
 * The blocks a table of n buckets holds before it doubles.  Up to
 * BLOCK_TABLE_HALF_BUCKETS buckets a table grows at half load, beyond at
 * 3/4.  (At 3/4, a table of N blocks needs 32 * N * 4/3 bytes at least
 * instead of 32 * N * 2, and with the mixing hash and backward-shift
 * deletion probes stay short; but the mallocbench trace, 40 k blocks live
 * in 2^16 buckets at 0.61 load, scanned 4.2 buckets per deletion and 2.5
 * per insertion, and with 2^17 buckets its report took 24% less time, 21
 * interleaved runs.  Larger tables keep 3/4: halving the C++ container
 * benchmark's load, 168 k blocks, cost 8 MiB and saved no time.)
 */
static inline size_t block_table_limit(size_t n)
{
	return n < BLOCK_TABLE_HALF_BUCKETS ? n / 2 : n / 4 * 3;
}

/* Bucket arrays of HUGE_ARRAY_MIN bytes or more live in a mapping of their
 * own (huge_array.h), smaller ones on the heap. */
static int block_table_mapped(size_t n)
{
	return n * sizeof(struct live_block) >= HUGE_ARRAY_MIN;
}

/* Sets the count at which the next half is faulted in, for mapped arrays:
 * 1/BLOCK_TABLE_PREFAULT_BAND of the bucket count before the table doubles.
 * A table that stops within that band keeps the half it never uses: with
 * an eighth, the C++ container benchmark's 168 k blocks (2^18 buckets)
 * stopped there and its report took 24 MiB instead of 16. */
static void block_table_plan_prefault(struct block_table *t)
{
	size_t n = t->mask + 1;

	t->prefault_count = SIZE_MAX;
	if (block_table_mapped(n))
		t->prefault_count = block_table_limit(n) - n / BLOCK_TABLE_PREFAULT_BAND;
}

int block_table_init(struct block_table *t)
{
	memset(t, 0, sizeof(*t));
	t->buckets = calloc(BLOCK_TABLE_INITIAL, sizeof(*t->buckets));
	t->mask = BLOCK_TABLE_INITIAL - 1;
	block_table_plan_prefault(t);
	return t->buckets ? 0 : -ENOMEM;
}

void block_table_free(struct block_table *t)
{
	huge_prefault_wait(&t->prefault);
	if (t->buckets && t->reserved)
		huge_array_free(t->buckets, t->reserved);
	else
		free(t->buckets);
	t->buckets = NULL;
	t->mask = 0;
	t->count = 0;
	t->reserved = 0;
}

/*
 * Has the half of the bucket array that the next doubling adds faulted in
 * by another thread, while this one goes on with the lower half: the kernel
 * clearing fresh pages was a sixth of the aggregation's time on python3's
 * trace.  Moves the array into a larger reservation first when the next
 * size would not fit its own.  Failing that, the doubling does it all, as
 * without.
 */
static __attribute__((noinline)) void block_table_prefault(struct block_table *t)
{
	size_t bytes = (t->mask + 1) * sizeof(struct live_block);
	size_t reserved = t->reserved;
	struct live_block *v;

	if (!reserved || bytes > SIZE_MAX / 2)
		return;
	if (2 * bytes > reserved) {
		v = huge_array_grow(t->buckets, bytes, 2 * bytes, &reserved);
		if (!v)
			return;
		t->buckets = v;
		t->reserved = reserved;
	}
	huge_prefault_start(&t->prefault, (char *)t->buckets + bytes, bytes);
}

/* The bucket array of t with room for n buckets (twice the old count),
 * old contents kept; *zeroed is set when the new half is zero already.
 * NULL when out of memory (t unchanged). */
static struct live_block *block_table_extend(struct block_table *t, size_t n, int *zeroed)
{
	size_t old_n = t->mask + 1, bytes = n * sizeof(struct live_block);
	size_t reserved = t->reserved;
	struct live_block *v;

	*zeroed = 0;
	if (!block_table_mapped(n))
		return realloc(t->buckets, bytes);
	*zeroed = 1;
	huge_prefault_wait(&t->prefault);
	if (reserved)
		v = huge_array_grow(t->buckets, old_n * sizeof(*v), bytes, &reserved);
	else {
		v = huge_array_alloc(bytes, &reserved);
		if (v) {
			memcpy(v, t->buckets, old_n * sizeof(*v));
			free(t->buckets);
		}
	}
	if (v)
		t->reserved = reserved;
	return v;
}

/* Puts b into the first free bucket of its probe run (b->addr not present). */
static void block_table_place(struct live_block *v, size_t mask, const struct live_block *b)
{
	size_t j = block_hash(b->addr, mask);

	while (v[j].addr)
		j = (j + 1) & mask;
	v[j] = *b;
}

/*
 * Doubles the bucket array in place.  block_table_extend extends it (for a
 * mapped array, mremap: no copy and no second array), then each block moves
 * to its bucket under the new mask.  Walking the old half upwards from just
 * after an empty bucket, a block's new bucket is never past its old one in
 * the low half, and every bucket before it has been rehashed already, so no
 * probe run ever spans a bucket that is still to be emptied.  The blocks
 * before the first empty bucket (a run that may have wrapped around from the
 * end) are held aside and placed last.
 */
static int block_table_grow(struct block_table *t)
{
	size_t old_n = t->mask + 1, n = old_n * 2, wrap = 0;
	struct live_block *v, *held = NULL;
	int zeroed;

	if (n > SIZE_MAX / 2 / sizeof(*v))
		return -ENOMEM;
	while (wrap < old_n && t->buckets[wrap].addr)
		wrap++;
	if (wrap) {
		held = malloc(wrap * sizeof(*held));
		if (!held)
			return -ENOMEM;
		memcpy(held, t->buckets, wrap * sizeof(*held));
	}
	v = block_table_extend(t, n, &zeroed);
	if (!v) {
		free(held);
		return -ENOMEM;
	}
	if (!zeroed)
		memset(v + old_n, 0, old_n * sizeof(*v));
	memset(v, 0, wrap * sizeof(*v));
	for (size_t i = wrap + 1; i < old_n; i++) {
		struct live_block b = v[i];

		if (!b.addr)
			continue;
		v[i].addr = 0;
		block_table_place(v, n - 1, &b);
	}
	for (size_t i = 0; i < wrap; i++)
		block_table_place(v, n - 1, &held[i]);
	free(held);
	t->buckets = v;
	t->mask = n - 1;
	block_table_plan_prefault(t);
	return 0;
}

/* Whether one more block calls for twice the buckets. */
static inline int block_table_full(const struct block_table *t)
{
	return t->count + 1 > block_table_limit(t->mask + 1);
}

int block_table_insert(struct block_table *t, const struct live_block *b,
		       struct live_block *replaced)
{
	size_t i;

	if (block_table_full(t) && block_table_grow(t) < 0)
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
	if (++t->count == t->prefault_count) {
		t->prefault_count = SIZE_MAX; /* once per size */
		block_table_prefault(t);
	}
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

const struct live_block *block_table_find(const struct block_table *t, uint64_t addr)
{
	size_t i = block_hash(addr, t->mask);

	if (!addr)
		return NULL;
	while (t->buckets[i].addr != addr) {
		if (!t->buckets[i].addr)
			return NULL;
		i = (i + 1) & t->mask;
	}
	return &t->buckets[i];
}

void block_table_each(const struct block_table *t,
		      void (*fn)(void *ctx, const struct live_block *b), void *ctx)
{
	for (size_t i = 0; i <= t->mask; i++)
		if (t->buckets[i].addr)
			fn(ctx, &t->buckets[i]);
}
