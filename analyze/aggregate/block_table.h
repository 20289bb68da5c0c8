/*
 * analyze/aggregate/block_table.h - the live heap blocks of one process, by address.
 *
 * Open addressing with ordered linear probing: the blocks lie in the array
 * in the order of their hash (block_hash), each at or after its home
 * bucket, with no empty bucket between home and block (Amble and Knuth's
 * ordered hash tables, 1974; the same layout as Robin Hood hashing).  The
 * home of a hash h among n homes is h * n / 2^64 (Lemire's multiply-shift
 * range reduction), which keeps hash order and allows any n: the table
 * grows by half or a third (2^k, 3 * 2^(k-1), 2^(k+1), ...) instead of
 * doubling.  Growing moves every block to a bucket at or after its old one,
 * so it is done in place, the array extended (mremap) and never
 * held twice.  Runs do not wrap around: a tail of spare buckets after the
 * last home holds the runs that reach past it, and its last bucket stays
 * empty, which ends every scan.  Deletion shifts the rest of the run back
 * (no tombstones).  Address 0 marks an empty bucket: no live block sits at
 * address 0.  Memory grows with the number of live blocks only.
 *
 * Growth: from 2^17 buckets, at 3/4 load; doubling up to 2^19 buckets,
 * then by half and by a third in turn.  Power-of-two
 * sizes had to double past 2^19 buckets for python3's 551 k live blocks
 * (16 MiB); 3 * 2^18 buckets hold them at 0.70 load in 12 MiB.
 *
 * A bucket is 16 bytes (compact: four to a cache line) while every block
 * fits BLOCK_COMPACT_* below (user addresses on x86-64 and arm64 lie below
 * 2^48; blocks under 16 MiB; fewer than 2^20 stacks and times); the first
 * block that does not turns the table into 32-byte buckets for good (same
 * positions), which hold any values.  Compact buckets halved the table and
 * the pages the kernel clears for it on python3's trace (551 k live blocks:
 * 32 MiB of buckets, then 16; the report's peak RSS 43.8 MiB, then 25.8).
 *
 * The bucket array is a mapping of its own on huge pages (huge_array.h),
 * made at the first block, 2 MiB (2^17 compact buckets) at the least; when
 * the table is 1/32 of its home count short of growing, a thread faults in
 * the part it will grow into.
 *
 * The hot path is one insert and one remove per allocation, each mostly
 * one cache miss.  The caller keeps whatever does not fit (the time of the
 * allocation as an index into its own array, a sampling weight other than
 * 1 in a second table).
 */
#ifndef MPROF_ANALYZE_BLOCK_TABLE_H
#define MPROF_ANALYZE_BLOCK_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "analyze/util/hash_seed.h"
#include "analyze/util/huge_array.h"

/* A live block, as the table's callers see it (the table packs it). */
struct live_block {
	uint64_t addr;          /* != 0 */
	uint64_t size_bytes;    /* requested size (caller-defined in other uses) */
	uint32_t stat_index;    /* index of the allocating stack's statistics */
	uint32_t time_index;    /* caller's index of the allocation's time */
	uint32_t seq_offset;    /* caller's: sequence number of the allocation
	                         * minus the first of its time_index;
	                         * < BLOCK_SEQ_OFFSET_LIMIT always */
};

#define BLOCK_SEQ_OFFSET_LIMIT ((uint32_t)1 << 16)
/* What a compact bucket holds: each value below its limit. */
#define BLOCK_COMPACT_ADDR_LIMIT ((uint64_t)1 << 48)
#define BLOCK_COMPACT_SIZE_LIMIT ((uint64_t)1 << 24)
#define BLOCK_COMPACT_STAT_LIMIT ((uint32_t)1 << 20)
#define BLOCK_COMPACT_TIME_LIMIT ((uint32_t)1 << 20)

struct block_table {
	uint64_t *words;            /* owned: the buckets, 2 or 4 words each */
	unsigned shift;             /* log2 of the words of a bucket: 1 (compact)
	                             * or 2 (wide) */
	size_t homes;               /* home buckets: 0 .. homes - 1 */
	size_t buckets;             /* buckets in the array: the homes and the
	                             * tail; the last one is always empty */
	size_t count;               /* live blocks */
	size_t reserved;            /* bytes of address space behind words
	                             * (huge_array.h) */
	size_t prefault_count;      /* count at which the part the table will
	                             * grow into is faulted in; SIZE_MAX: never */
	struct huge_prefault prefault;
};

/* Hash of addr, which also orders the table.  Heap addresses are 16-byte
 * aligned and clustered in a few ranges: a full 64-bit mix (murmur3's
 * finalizer, a bijection) spreads them.  (One multiplication by 2^64 /
 * golden ratio saved 26-29 instructions per event but put blocks of common
 * sizes made in a row, strides of 496, 992 or 3632 bytes, into a few long
 * probe runs: reports up to 15x slower.)  Seeded (hash_seed.h): a crafted
 * trace cannot choose addresses that collide. */
static inline uint64_t block_hash(uint64_t addr)
{
	return hash_mix64(addr >> 4);
}

/* Home bucket of hash h among homes buckets: h * homes / 2^64, never
 * smaller for a larger h or a larger homes. */
static inline size_t block_home(uint64_t h, size_t homes)
{
	return (size_t)(((unsigned __int128)h * homes) >> 64);
}

/* Starts loading the home bucket of a block whose address hashes to h
 * (block_hash) into the cache: with many live blocks the table outgrows
 * the caches and every lookup is a cache miss; callers that know upcoming
 * addresses hide that latency. */
static inline void block_table_prefetch_hashed(const struct block_table *t, uint64_t h)
{
	const uint64_t *b;

	if (!t->words)
		return; /* no block yet */
	b = t->words + (block_home(h, t->homes) << t->shift);
#if defined(__x86_64__) || defined(__i386__)
	/* gcc 12 drops __builtin_prefetch here (measured: no instruction) */
	__asm__ volatile("prefetcht0 %0" : : "m"(*(const char *)b));
#else
	__builtin_prefetch(b);
#endif
}

/* block_table_prefetch_hashed of addr. */
static inline void block_table_prefetch(const struct block_table *t, uint64_t addr)
{
	block_table_prefetch_hashed(t, block_hash(addr));
}

/* An empty table; its bucket array is made at the first block
 * (block_table_insert, block_table_reserve).  Returns 0. */
int block_table_init(struct block_table *t);
void block_table_free(struct block_table *t);

/* As block_table_free, but t's bucket array (if it has one) is handed over
 * in *spare for a later phase to reuse (huge_array.h); its contents are the
 * old buckets. */
void block_table_detach(struct block_table *t, struct huge_spare *spare);

/*
 * Inserts b (b->addr != 0, b->seq_offset < BLOCK_SEQ_OFFSET_LIMIT).  When a
 * block with that address is already live, copies it to *replaced,
 * overwrites it and returns 1; otherwise returns 0.  Returns -ENOMEM when
 * the table cannot grow or widen its buckets (nothing inserted).
 */
int block_table_insert(struct block_table *t, const struct live_block *b,
		       struct live_block *replaced);

/* block_table_insert of a block whose address hashes to h (block_hash of
 * b->addr): for a caller that computed it already, to prefetch. */
int block_table_insert_hashed(struct block_table *t, const struct live_block *b, uint64_t h,
			      struct live_block *replaced);

/*
 * Grows t, if it must, to hold n blocks without growing again.  For many
 * blocks inserted in the table's own order (block_table_each of another
 * table): into a table too small for them, blocks in rising hash order all
 * have their homes among the first few buckets, and every insertion scans
 * the run the earlier ones made (seeding a fork child with 988 k inherited
 * blocks took 117 s instead of 0.54).  Returns 0 or -ENOMEM (t unchanged but
 * for growth already done).
 */
int block_table_reserve(struct block_table *t, size_t n);

/* Removes the block at addr, copying it to *out.  Returns 1 when found,
 * 0 when no live block has that address. */
int block_table_remove(struct block_table *t, uint64_t addr, struct live_block *out);

/* block_table_remove of addr, which hashes to h (block_hash). */
int block_table_remove_hashed(struct block_table *t, uint64_t addr, uint64_t h,
			      struct live_block *out);

/* Copies the live block at addr to *out and returns 1, or returns 0 when
 * no live block has that address. */
int block_table_find(const struct block_table *t, uint64_t addr, struct live_block *out);

/* The address of the block in bucket i (< buckets), 0 when it is empty. */
uint64_t block_table_addr_at(const struct block_table *t, size_t i);

/* Iteration: calls fn(ctx, block) for every live block, in no order (block
 * points to a copy, valid during the call). */
void block_table_each(const struct block_table *t,
		      void (*fn)(void *ctx, const struct live_block *b), void *ctx);

#endif
