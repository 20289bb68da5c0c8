/*
 * analyze/block_table.c - hash table of live blocks keyed by address (see
 * block_table.h).
 *
 * Owns its bucket array.  Must stay allocation-free per operation apart from
 * doubling the array and, once at most, widening its buckets; the hot path
 * of the report is one insert and one remove per allocation.
 *
 * A bucket's words (all zero: empty):
 *   compact (shift 1): addr | seq_offset << 48,
 *                      size_bytes | stat_index << 24 | time_index << 44
 *   wide (shift 2):    addr, size_bytes, stat_index | time_index << 32,
 *                      seq_offset
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/block_table.h"
#include "analyze/huge_array.h"

#define BLOCK_TABLE_INITIAL (1u << 12)
/* Tables of fewer buckets grow at half load (block_table_limit) */
#define BLOCK_TABLE_HALF_BUCKETS (1u << 17)
/* The next half is faulted in this fraction of the bucket count before
 * the table doubles (block_table_plan_prefault). */
#define BLOCK_TABLE_PREFAULT_BAND 32

/*
 * The blocks a table of n buckets holds before it doubles.  Up to
 * BLOCK_TABLE_HALF_BUCKETS buckets a table grows at half load, beyond at
 * 3/4.  (At 3/4, a table of N blocks needs N * 4/3 buckets at least
 * instead of N * 2, and with the mixing hash and backward-shift
 * deletion probes stay short; but the mallocbench trace, 40 k blocks live
 * in 2^16 buckets at 0.61 load, scanned 4.2 buckets per deletion and 2.5
 * per insertion, and with 2^17 buckets its report took 24% less time, 21
 * interleaved runs, with 32-byte buckets.  Larger tables keep 3/4:
 * halving the C++ container benchmark's load, 168 k blocks, cost 8 MiB and
 * saved no time.)
 */
static inline size_t block_table_limit(size_t n)
{
	return n < BLOCK_TABLE_HALF_BUCKETS ? n / 2 : n / 4 * 3;
}

/* Bucket i of t. */
static inline uint64_t *bucket(const struct block_table *t, size_t i)
{
	return t->words + (i << t->shift);
}

/* What of a bucket's first word is its address. */
static inline uint64_t block_addr_mask(unsigned shift)
{
	return shift == 1 ? BLOCK_COMPACT_ADDR_LIMIT - 1 : UINT64_MAX;
}

/* Whether b fits a compact bucket: no value at or past its limit
 * (seq_offset is below it always). */
static inline int block_fits_compact(const struct live_block *b)
{
	_Static_assert(BLOCK_COMPACT_STAT_LIMIT == BLOCK_COMPACT_TIME_LIMIT, "one shift for both");
	return ((b->addr >> 48) | (b->size_bytes >> 24) | ((b->stat_index | b->time_index) >> 20)) ==
	       0;
}

/* Writes b into the words w of a bucket (b fits it). */
static inline void block_pack(unsigned shift, uint64_t *w, const struct live_block *b)
{
	if (shift == 1) {
		w[0] = b->addr | (uint64_t)b->seq_offset << 48;
		w[1] = b->size_bytes | (uint64_t)b->stat_index << 24 |
		       (uint64_t)b->time_index << 44;
		return;
	}
	w[0] = b->addr;
	w[1] = b->size_bytes;
	w[2] = b->stat_index | (uint64_t)b->time_index << 32;
	w[3] = b->seq_offset;
}

static inline void block_unpack(unsigned shift, const uint64_t *w, struct live_block *b)
{
	if (shift == 1) {
		b->addr = w[0] & (BLOCK_COMPACT_ADDR_LIMIT - 1);
		b->seq_offset = (uint32_t)(w[0] >> 48);
		b->size_bytes = w[1] & (BLOCK_COMPACT_SIZE_LIMIT - 1);
		b->stat_index = (uint32_t)(w[1] >> 24) & (BLOCK_COMPACT_STAT_LIMIT - 1);
		b->time_index = (uint32_t)(w[1] >> 44);
		return;
	}
	b->addr = w[0];
	b->size_bytes = w[1];
	b->stat_index = (uint32_t)w[2];
	b->time_index = (uint32_t)(w[2] >> 32);
	b->seq_offset = (uint32_t)w[3];
}

/* Copies one bucket. */
static inline void block_bucket_copy(unsigned shift, uint64_t *dst, const uint64_t *src)
{
	dst[0] = src[0];
	dst[1] = src[1];
	if (shift == 2) {
		dst[2] = src[2];
		dst[3] = src[3];
	}
}

/* Bytes of n buckets of t's kind. */
static inline size_t bucket_bytes(const struct block_table *t, size_t n)
{
	return n << (t->shift + 3);
}

/* Bucket arrays of HUGE_ARRAY_MIN bytes or more live in a mapping of their
 * own (huge_array.h), smaller ones on the heap. */
static int block_table_mapped(const struct block_table *t, size_t n)
{
	return bucket_bytes(t, n) >= HUGE_ARRAY_MIN;
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
	if (block_table_mapped(t, n))
		t->prefault_count = block_table_limit(n) - n / BLOCK_TABLE_PREFAULT_BAND;
}

int block_table_init(struct block_table *t)
{
	memset(t, 0, sizeof(*t));
	t->shift = 1;
	t->words = calloc(BLOCK_TABLE_INITIAL, bucket_bytes(t, 1));
	t->mask = BLOCK_TABLE_INITIAL - 1;
	block_table_plan_prefault(t);
	return t->words ? 0 : -ENOMEM;
}

/* Frees a bucket array of t (words, reserved: t's own or another's). */
static void bucket_array_free(uint64_t *words, size_t reserved)
{
	if (words && reserved)
		huge_array_free(words, reserved);
	else
		free(words);
}

void block_table_free(struct block_table *t)
{
	huge_prefault_wait(&t->prefault);
	bucket_array_free(t->words, t->reserved);
	t->words = NULL;
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
	size_t bytes = bucket_bytes(t, t->mask + 1);
	size_t reserved = t->reserved;
	uint64_t *v;

	t->prefault_count = SIZE_MAX; /* once per size */
	if (!reserved || bytes > SIZE_MAX / 2)
		return;
	if (2 * bytes > reserved) {
		v = huge_array_grow(t->words, bytes, 2 * bytes, &reserved);
		if (!v)
			return;
		t->words = v;
		t->reserved = reserved;
	}
	huge_prefault_start(&t->prefault, (char *)t->words + bytes, bytes);
}

/* The bucket array of t with room for n buckets (twice the old count),
 * old contents kept; *zeroed is set when the new half is zero already.
 * NULL when out of memory (t unchanged). */
static uint64_t *block_table_extend(struct block_table *t, size_t n, int *zeroed)
{
	size_t old_bytes = bucket_bytes(t, t->mask + 1), bytes = bucket_bytes(t, n);
	size_t reserved = t->reserved;
	uint64_t *v;

	*zeroed = 0;
	if (!block_table_mapped(t, n))
		return realloc(t->words, bytes);
	*zeroed = 1;
	huge_prefault_wait(&t->prefault);
	if (reserved)
		v = huge_array_grow(t->words, old_bytes, bytes, &reserved);
	else {
		v = huge_array_alloc(bytes, &reserved);
		if (v) {
			memcpy(v, t->words, old_bytes);
			free(t->words);
		}
	}
	if (v)
		t->reserved = reserved;
	return v;
}

/* Puts bucket b (of t's kind, its address not present) into the first free
 * bucket of its probe run in array v of mask + 1 buckets. */
static void block_table_place(const struct block_table *t, uint64_t *v, size_t mask,
			      const uint64_t *b)
{
	size_t j = block_hash(b[0] & block_addr_mask(t->shift), mask);

	while (v[j << t->shift])
		j = (j + 1) & mask;
	block_bucket_copy(t->shift, v + (j << t->shift), b);
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
	uint64_t *v, *held = NULL;
	int zeroed;

	if (n > SIZE_MAX / 2 / bucket_bytes(t, 1))
		return -ENOMEM;
	while (wrap < old_n && *bucket(t, wrap))
		wrap++;
	if (wrap) {
		held = malloc(bucket_bytes(t, wrap));
		if (!held)
			return -ENOMEM;
		memcpy(held, t->words, bucket_bytes(t, wrap));
	}
	v = block_table_extend(t, n, &zeroed);
	if (!v) {
		free(held);
		return -ENOMEM;
	}
	if (!zeroed)
		memset((char *)v + bucket_bytes(t, old_n), 0, bucket_bytes(t, old_n));
	memset(v, 0, bucket_bytes(t, wrap));
	for (size_t i = wrap + 1; i < old_n; i++) {
		uint64_t *s = v + (i << t->shift), b[4];

		if (!s[0])
			continue;
		block_bucket_copy(t->shift, b, s);
		s[0] = 0;
		block_table_place(t, v, n - 1, b);
	}
	for (size_t i = 0; i < wrap; i++)
		block_table_place(t, v, n - 1, held + (i << t->shift));
	free(held);
	t->words = v;
	t->mask = n - 1;
	block_table_plan_prefault(t);
	return 0;
}

/*
 * Turns t's buckets into wide ones, as many: a new array (twice the bytes)
 * that every block is rehashed into, then the old one freed.  Once per
 * table at most, for the first block that a compact bucket cannot hold.
 * Returns 0 or -ENOMEM (t unchanged).
 */
static __attribute__((noinline)) int block_table_widen(struct block_table *t)
{
	struct block_table wide;
	size_t n = t->mask + 1, reserved = 0;
	uint64_t *v;

	huge_prefault_wait(&t->prefault); /* before the copy: joined once */
	wide = *t;
	wide.shift = 2;
	if (block_table_mapped(&wide, n))
		v = huge_array_alloc(bucket_bytes(&wide, n), &reserved);
	else
		v = calloc(n, bucket_bytes(&wide, 1));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const uint64_t *s = bucket(t, i);
		struct live_block b;
		uint64_t w[4];

		if (!s[0])
			continue;
		block_unpack(1, s, &b);
		block_pack(2, w, &b);
		block_table_place(&wide, v, t->mask, w);
	}
	bucket_array_free(t->words, t->reserved);
	wide.words = v;
	wide.reserved = reserved;
	*t = wide;
	block_table_plan_prefault(t);
	return 0;
}

/* block_table_insert's probe (room made, b fits): returns 1 (replaced) or
 * 0 (added). */
static inline int block_insert_in(struct block_table *t, const struct live_block *b,
				  struct live_block *replaced, unsigned shift)
{
	uint64_t w[4], *s;
	size_t i;

	block_pack(shift, w, b);
	for (i = block_hash(b->addr, t->mask);; i = (i + 1) & t->mask) {
		s = t->words + (i << shift);
		if (!s[0])
			break;
		if ((s[0] & block_addr_mask(shift)) == b->addr) {
			block_unpack(shift, s, replaced);
			block_bucket_copy(shift, s, w);
			return 1;
		}
	}
	block_bucket_copy(shift, s, w);
	t->count++;
	return 0;
}

int block_table_insert(struct block_table *t, const struct live_block *b,
		       struct live_block *replaced)
{
	int rc;

	if (t->shift == 1 && !block_fits_compact(b) && block_table_widen(t) < 0)
		return -ENOMEM;
	if (t->count + 1 > block_table_limit(t->mask + 1) && block_table_grow(t) < 0)
		return -ENOMEM;
	rc = block_insert_in(t, b, replaced, t->shift);
	if (rc == 0 && t->count == t->prefault_count)
		block_table_prefault(t);
	return rc;
}

/* block_table_remove: the lookup, then backward-shift deletion (later
 * members of the probe run move into the hole when their home bucket does
 * not lie between hole and them). */
static inline int block_remove_in(struct block_table *t, uint64_t addr, struct live_block *out,
				  unsigned shift)
{
	uint64_t *s;
	size_t i, j;

	if (!addr)
		return 0;
	for (i = block_hash(addr, t->mask);; i = (i + 1) & t->mask) {
		s = t->words + (i << shift);
		if (!s[0])
			return 0;
		if ((s[0] & block_addr_mask(shift)) == addr)
			break;
	}
	block_unpack(shift, s, out);
	for (j = i;;) {
		const uint64_t *n;
		size_t home;

		j = (j + 1) & t->mask;
		n = t->words + (j << shift);
		if (!n[0])
			break;
		home = block_hash(n[0] & block_addr_mask(shift), t->mask);
		if (((j - home) & t->mask) >= ((j - i) & t->mask)) {
			block_bucket_copy(shift, t->words + (i << shift), n);
			i = j;
		}
	}
	t->words[i << shift] = 0;
	t->count--;
	return 1;
}

int block_table_remove(struct block_table *t, uint64_t addr, struct live_block *out)
{
	return block_remove_in(t, addr, out, t->shift);
}

int block_table_find(const struct block_table *t, uint64_t addr, struct live_block *out)
{
	size_t i = block_hash(addr, t->mask);

	if (!addr)
		return 0;
	for (;; i = (i + 1) & t->mask) {
		const uint64_t *s = bucket(t, i);

		if (!s[0])
			return 0;
		if ((s[0] & block_addr_mask(t->shift)) == addr) {
			block_unpack(t->shift, s, out);
			return 1;
		}
	}
}

uint64_t block_table_addr_at(const struct block_table *t, size_t i)
{
	return *bucket(t, i) & block_addr_mask(t->shift);
}

void block_table_each(const struct block_table *t,
		      void (*fn)(void *ctx, const struct live_block *b), void *ctx)
{
	for (size_t i = 0; i <= t->mask; i++) {
		const uint64_t *s = bucket(t, i);
		struct live_block b;

		if (!s[0])
			continue;
		block_unpack(t->shift, s, &b);
		fn(ctx, &b);
	}
}
