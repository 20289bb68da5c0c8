/*
 * analyze/aggregate/block_table.c - hash table of live blocks keyed by address (see
 * block_table.h).
 *
 * Owns its bucket array.  Must stay allocation-free per operation apart from
 * growing the array (and its tail) and, once at most, widening its buckets;
 * the hot path of the report is one insert and one remove per allocation.
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

#include "analyze/aggregate/block_table.h"
#include "analyze/util/huge_array.h"

/*
 * Buckets a table starts with: 2 MiB of compact buckets, one huge page, so
 * that every bucket array is a mapping of its own (huge_array.h).  It is
 * made at the first block, with address space for just that (a report
 * under a limit on address space, ulimit -v, then needs 2 MiB more per
 * process with blocks, not 8; a table that never has a block, such as the
 * sampling weights of an exact trace, maps nothing).  Tables started at
 * 4096 buckets on the heap, and the five growths to 2^17 (with realloc
 * copying and the kernel clearing 4 KiB pages, some 10-13 us each on these
 * machines) took python3's report about 7 ms of its aggregation thread.
 * Started here (and with growth's first pass without branches), python3's
 * report took 3% less time (medians of 21 interleaved rounds), those of
 * sqlite3, cc1 and the C++ program 8-14% less (9 rounds), mallocbench's
 * the same within noise; and 1.6 MiB more memory where few blocks are live
 * (sqlite3's report: 5.9 MiB against 4.3).
 */
#define BLOCK_TABLE_INITIAL (1u << 17)
_Static_assert(((size_t)BLOCK_TABLE_INITIAL << 4) >= HUGE_ARRAY_MIN,
	       "every bucket array is a mapping");
/* From this size on the table grows by half or a third, not double: finer
 * steps where they save megabytes.  (Each growth moves every block; growing
 * by these steps from 2^17 on took python3's report 5 growths past 2^17
 * instead of 3, and the aggregation 14 ms more, measured on the table
 * alone.) */
#define BLOCK_TABLE_FINE_BUCKETS (1u << 19)
/* Spare buckets after the last home, at least, and the step the tail grows
 * by: runs reaching past the last home end there.  The homes are the size
 * less the tail, so that the array is 2^k or 3 * 2^(k-1) buckets, whole 2
 * MiB pages when large (with 4 KiB more, python3's 12 MiB table took 14
 * MiB: the last 4 KiB took a huge page); a multiple of 256 keeps every
 * array a whole number of 4 KiB pages (prefault ranges). */
#define BLOCK_TABLE_TAIL 256u
/* The next part is faulted in this fraction of the size before the table
 * grows (block_table_plan_prefault). */
#define BLOCK_TABLE_PREFAULT_BAND 32

/*
 * The blocks a table of size n (homes and tail) holds before it grows: at
 * 3/4 load.  (A table of N blocks needs N * 4/3 buckets, and with the
 * mixing hash probes stay short.  Halving the C++ container benchmark's
 * load, 168 k blocks, cost 8 MiB and saved no time.  Tables smaller than
 * 2^17 buckets grew at half load while there were any: the mallocbench
 * trace's 40 k blocks in 2^16 buckets at 0.61 load scanned 4.2 buckets per
 * deletion.)
 */
static inline size_t block_table_limit(size_t n)
{
	return n / 4 * 3;
}

/* The size after n (homes and tail): doubled below
 * BLOCK_TABLE_FINE_BUCKETS, then by half from a power of two and by a third
 * from 3 * 2^k (to 2^(k+2)). */
static inline size_t block_table_next_size(size_t n)
{
	if (n < BLOCK_TABLE_FINE_BUCKETS)
		return 2 * n;
	return (n & (n - 1)) == 0 ? n + n / 2 : n + n / 3;
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

/* The address in bucket words s. */
static inline uint64_t bucket_addr(unsigned shift, const uint64_t *s)
{
	return s[0] & block_addr_mask(shift);
}

/* Home of the block in bucket words s (not empty) among homes buckets. */
static inline size_t bucket_home(unsigned shift, const uint64_t *s, size_t homes)
{
	return block_home(block_hash(bucket_addr(shift, s)), homes);
}

/* The size of t: its homes and the tail it starts with (the array is
 * larger when its tail has grown). */
static inline size_t block_table_size(const struct block_table *t)
{
	return t->homes + BLOCK_TABLE_TAIL;
}

/* Sets the count at which the next part is faulted in:
 * 1/BLOCK_TABLE_PREFAULT_BAND of the size before the table grows.
 * A table that stops within that band keeps the part it never uses: with
 * an eighth, the C++ container benchmark's 168 k blocks (2^18 buckets)
 * stopped there and its report took 24 MiB instead of 16. */
static void block_table_plan_prefault(struct block_table *t)
{
	t->prefault_count = block_table_limit(block_table_size(t)) -
			    block_table_size(t) / BLOCK_TABLE_PREFAULT_BAND;
}

int block_table_init(struct block_table *t)
{
	memset(t, 0, sizeof(*t));
	t->shift = 1;
	t->homes = BLOCK_TABLE_INITIAL - BLOCK_TABLE_TAIL;
	t->buckets = BLOCK_TABLE_INITIAL;
	block_table_plan_prefault(t);
	return 0;
}

/* Makes t's first bucket array (t has none).  Returns 0 or -ENOMEM. */
static __attribute__((noinline)) int block_table_map(struct block_table *t)
{
	t->words = huge_array_alloc_exact(bucket_bytes(t, t->buckets), &t->reserved);
	if (!t->words) {
		t->reserved = 0;
		return -ENOMEM;
	}
	return 0;
}

void block_table_detach(struct block_table *t, struct huge_spare *spare)
{
	huge_prefault_wait(&t->prefault);
	spare->p = t->words;
	spare->bytes = t->words ? bucket_bytes(t, t->buckets) : 0;
	spare->reserved = t->reserved;
	t->words = NULL;
	t->homes = t->buckets = 0;
	t->count = 0;
	t->reserved = 0;
}

void block_table_free(struct block_table *t)
{
	struct huge_spare spare;

	block_table_detach(t, &spare);
	huge_array_free(spare.p, spare.reserved);
}

/*
 * Has the part of the bucket array that the next growth adds faulted in by
 * another thread, while this one goes on below it: the kernel clearing
 * fresh pages was a sixth of the aggregation's time on python3's trace.
 * Moves the array into a larger reservation first when the next size would
 * not fit its own.  Failing that, the growth does it all, as without.
 */
static __attribute__((noinline)) void block_table_prefault(struct block_table *t)
{
	size_t bytes = bucket_bytes(t, t->buckets);
	size_t next = bucket_bytes(t, block_table_next_size(block_table_size(t)));
	size_t reserved = t->reserved;
	uint64_t *v;

	t->prefault_count = SIZE_MAX; /* once per size */
	if (next <= bytes || next > SIZE_MAX / 4)
		return;
	if (next > reserved) {
		v = huge_array_grow(t->words, bytes, next, &reserved);
		t->reserved = reserved; /* updated on failure too (huge_array_grow) */
		if (!v)
			return;
		t->words = v;
	}
	huge_prefault_start(&t->prefault, (char *)t->words + bytes, next - bytes);
}

/* Extends the bucket array of t to n buckets (> t->buckets), old contents
 * kept, the new ones empty.  Returns the array (t->words is not updated),
 * or NULL when out of memory (t unchanged). */
static uint64_t *block_table_extend(struct block_table *t, size_t n)
{
	size_t reserved = t->reserved;
	uint64_t *v;

	huge_prefault_wait(&t->prefault);
	v = huge_array_grow(t->words, bucket_bytes(t, t->buckets), bucket_bytes(t, n), &reserved);
	t->reserved = reserved; /* updated on failure too (huge_array_grow) */
	return v;
}

/* Rounds n up to a whole number of tail steps. */
static inline size_t round_to_tail(size_t n)
{
	return (n + BLOCK_TABLE_TAIL - 1) / BLOCK_TABLE_TAIL * BLOCK_TABLE_TAIL;
}

/* Adds BLOCK_TABLE_TAIL buckets to the tail (a run reached the last
 * bucket, which must stay empty).  Returns 0 or -ENOMEM (t unchanged). */
static __attribute__((noinline)) int block_table_extend_tail(struct block_table *t)
{
	uint64_t *v;

	if (t->buckets > SIZE_MAX / 64 - BLOCK_TABLE_TAIL)
		return -ENOMEM;
	v = block_table_extend(t, t->buckets + BLOCK_TABLE_TAIL);
	if (!v)
		return -ENOMEM;
	t->words = v;
	t->buckets += BLOCK_TABLE_TAIL;
	block_table_plan_prefault(t);
	return 0;
}

/*
 * Grows t to the next home count, in place.  A block's new home is never
 * before its old one, and the blocks keep their order, so each block's new
 * bucket is at or after its old one:
 *  1. a pass upwards computes each block's new bucket (its new home, or
 *     the bucket after the previous block's, whichever is later) and marks
 *     in a bitmap, by old bucket, the blocks that sit at their new home:
 *     each starts a new run;
 *  2. the array is extended to the new homes and a tail that holds the
 *     last run;
 *  3. a pass downwards takes the runs from the last: it finds the run's
 *     first block in the bitmap, counts its blocks, and moves them from the
 *     last to the first into consecutive buckets from that block's new home.
 *     Every bucket written is past the old bucket of every block not yet
 *     moved.
 * The bitmap (one bit per old bucket, 96 KiB at 786 k buckets) is the only
 * memory used besides the array.  Returns 0 or -ENOMEM (t unchanged).
 */
static __attribute__((noinline)) int block_table_grow(struct block_table *t)
{
	size_t size = block_table_next_size(block_table_size(t)), old = t->buckets, n, next = 0;
	size_t homes = size - BLOCK_TABLE_TAIL;
	unsigned shift = t->shift;
	uint64_t *starts, *v;

	if (size > SIZE_MAX / 64)
		return -ENOMEM;
	starts = calloc((old + 63) / 64, sizeof(*starts));
	if (!starts)
		return -ENOMEM;
	/* without branches (an empty bucket's home, that of address 0, is
	 * computed and not used): with them, taken at random, this pass took
	 * 5.6 ms of python3's three growths, and 2.4 ms without */
	for (size_t i = 0; i < old; i += 64) {
		size_t end = i + 64 < old ? i + 64 : old;
		uint64_t bits = 0;

		for (size_t j = i; j < end; j++) {
			const uint64_t *s = t->words + (j << shift);
			size_t home = bucket_home(shift, s, homes);
			uint64_t full = s[0] != 0, start = full & (home >= next);

			bits |= start << (j - i);
			home = home > next ? home : next;
			next = full ? home + 1 : next;
		}
		starts[i / 64] = bits;
	}
	/* next: one past the last block's new bucket, which stays empty */
	n = next + 1 > size ? homes + round_to_tail(next + 1 - homes) : size;
	if (n < old)
		n = old; /* a tail grown long earlier: kept */
	if (n > old) {
		v = block_table_extend(t, n);
		if (!v) {
			free(starts);
			return -ENOMEM;
		}
		t->words = v;
		t->buckets = n;
	}
	for (size_t i = old; i-- > 0;) {
		size_t first = i, blocks = 0, to;

		if (!t->words[i << shift])
			continue;
		/* the run of new buckets that the block in bucket i ends */
		for (;; first--) {
			blocks += t->words[first << shift] != 0;
			if (starts[first / 64] >> (first % 64) & 1)
				break;
		}
		to = bucket_home(shift, t->words + (first << shift), homes) + blocks;
		for (size_t j = i + 1; j-- > first;) {
			uint64_t *s = t->words + (j << shift);

			if (!s[0])
				continue;
			if (--to != j) {
				block_bucket_copy(shift, t->words + (to << shift), s);
				s[0] = 0;
			}
		}
		i = first;
	}
	free(starts);
	t->homes = homes;
	block_table_plan_prefault(t);
	return 0;
}

/*
 * Turns t's buckets into wide ones, in the same places (the hash order and
 * the homes do not change): a new array (twice the bytes), then the old
 * one freed.  Once per table at most, for the first block that a compact
 * bucket cannot hold.  Returns 0 or -ENOMEM (t unchanged).
 */
static __attribute__((noinline)) int block_table_widen(struct block_table *t)
{
	struct block_table wide;
	size_t n = t->buckets, reserved = 0;
	uint64_t *v;

	huge_prefault_wait(&t->prefault); /* before the copy: joined once */
	wide = *t;
	wide.shift = 2;
	v = huge_array_alloc(bucket_bytes(&wide, n), &reserved);
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const uint64_t *s = bucket(t, i);
		struct live_block b;

		if (!s[0])
			continue;
		block_unpack(1, s, &b);
		block_pack(2, v + (i << 2), &b);
	}
	huge_array_free(t->words, t->reserved);
	wide.words = v;
	wide.reserved = reserved;
	*t = wide;
	block_table_plan_prefault(t);
	return 0;
}

/*
 * block_table_insert's probe (room made, b fits): past the blocks of
 * smaller hash (or the same one, which may be b's address), b goes in the
 * first bucket whose block has a larger hash, and the rest of the run moves
 * up one bucket.  Returns 1 (replaced), 0 (added) or -ENOMEM (the run
 * reached the last bucket and the tail could not grow).
 */
static inline __attribute__((always_inline)) int
block_insert_in(struct block_table *t, const struct live_block *b, uint64_t h,
		struct live_block *replaced, unsigned shift)
{
	uint64_t w[4], *s;
	size_t i, end;

	block_pack(shift, w, b);
	for (i = block_home(h, t->homes);; i++) {
		uint64_t addr;

		s = t->words + (i << shift);
		if (!s[0])
			break;
		addr = bucket_addr(shift, s);
		if (addr == b->addr) {
			block_unpack(shift, s, replaced);
			block_bucket_copy(shift, s, w);
			return 1;
		}
		if (block_hash(addr) > h)
			break;
	}
	for (end = i; t->words[end << shift]; end++)
		;
	if (end == t->buckets - 1) {
		if (block_table_extend_tail(t) < 0)
			return -ENOMEM;
	}
	for (; end > i; end--)
		block_bucket_copy(shift, t->words + (end << shift), t->words + ((end - 1) << shift));
	block_bucket_copy(shift, t->words + (i << shift), w);
	t->count++;
	return 0;
}

/* block_table_reserve of an empty table: straight to the size that growth
 * would reach, with nothing to move (a fork child's million inherited
 * blocks took six growths, each a pass over the array, 10 ms a child). */
static int block_table_reserve_empty(struct block_table *t, size_t n)
{
	size_t size = block_table_size(t);
	uint64_t *v;

	while (n > block_table_limit(size)) {
		size = block_table_next_size(size);
		if (size > SIZE_MAX / 64)
			return -ENOMEM;
	}
	if (t->words) {
		v = block_table_extend(t, size);
		if (!v)
			return -ENOMEM;
		t->words = v;
		t->buckets = size;
	} else {
		t->buckets = size;
		if (block_table_map(t) < 0) {
			t->buckets = block_table_size(t);
			return -ENOMEM;
		}
	}
	t->homes = size - BLOCK_TABLE_TAIL;
	block_table_plan_prefault(t);
	return 0;
}

int block_table_reserve(struct block_table *t, size_t n)
{
	if (t->count == 0 && t->buckets == block_table_size(t) &&
	    n > block_table_limit(block_table_size(t)))
		return block_table_reserve_empty(t, n);
	while (n > block_table_limit(block_table_size(t)))
		if ((!t->words && block_table_map(t) < 0) || block_table_grow(t) < 0)
			return -ENOMEM;
	return 0;
}

int block_table_insert(struct block_table *t, const struct live_block *b,
		       struct live_block *replaced)
{
	return block_table_insert_hashed(t, b, block_hash(b->addr), replaced);
}

int block_table_insert_hashed(struct block_table *t, const struct live_block *b, uint64_t h,
			      struct live_block *replaced)
{
	int rc;

	if (!t->words && block_table_map(t) < 0)
		return -ENOMEM;
	if (t->shift == 1 && !block_fits_compact(b) && block_table_widen(t) < 0)
		return -ENOMEM;
	if (t->count + 1 > block_table_limit(block_table_size(t)) && block_table_grow(t) < 0)
		return -ENOMEM;
	/* the bucket's kind a constant in each: no test of it per bucket */
	rc = t->shift == 1 ? block_insert_in(t, b, h, replaced, 1)
			   : block_insert_in(t, b, h, replaced, 2);
	if (rc == 0 && t->count == t->prefault_count)
		block_table_prefault(t);
	return rc;
}

/* The bucket holding addr's block (addr hashes to h), or NULL. */
static inline uint64_t *block_lookup(const struct block_table *t, uint64_t addr, uint64_t h,
				     unsigned shift)
{
	if (!addr || !t->words)
		return NULL;
	for (size_t i = block_home(h, t->homes);; i++) {
		uint64_t *s = t->words + (i << shift);

		if (!s[0])
			return NULL;
		if (bucket_addr(shift, s) == addr)
			return s;
	}
}

/* block_table_remove: the lookup, then the blocks after it in the run move
 * back one bucket, up to the first that sits at its home. */
static inline __attribute__((always_inline)) int
block_remove_in(struct block_table *t, uint64_t addr, uint64_t h, struct live_block *out,
		unsigned shift)
{
	uint64_t *s = block_lookup(t, addr, h, shift), *n;
	size_t j;

	if (!s)
		return 0;
	block_unpack(shift, s, out);
	j = (size_t)(s - t->words) >> shift;
	for (;; j++) {
		n = t->words + ((j + 1) << shift);
		if (!n[0] || bucket_home(shift, n, t->homes) > j)
			break;
		block_bucket_copy(shift, t->words + (j << shift), n);
	}
	t->words[j << shift] = 0;
	t->count--;
	return 1;
}

int block_table_remove(struct block_table *t, uint64_t addr, struct live_block *out)
{
	return block_remove_in(t, addr, block_hash(addr), out, t->shift);
}

int block_table_remove_hashed(struct block_table *t, uint64_t addr, uint64_t h,
			      struct live_block *out)
{
	/* the bucket's kind a constant in each: no test of it per bucket */
	return t->shift == 1 ? block_remove_in(t, addr, h, out, 1)
			     : block_remove_in(t, addr, h, out, 2);
}

int block_table_find(const struct block_table *t, uint64_t addr, struct live_block *out)
{
	const uint64_t *s = block_lookup(t, addr, block_hash(addr), t->shift);

	if (!s)
		return 0;
	block_unpack(t->shift, s, out);
	return 1;
}

uint64_t block_table_addr_at(const struct block_table *t, size_t i)
{
	return t->words ? bucket_addr(t->shift, bucket(t, i)) : 0;
}

void block_table_each(const struct block_table *t,
		      void (*fn)(void *ctx, const struct live_block *b), void *ctx)
{
	for (size_t i = 0; t->words && i < t->buckets; i++) {
		const uint64_t *s = bucket(t, i);
		struct live_block b;

		if (!s[0])
			continue;
		block_unpack(t->shift, s, &b);
		fn(ctx, &b);
	}
}
