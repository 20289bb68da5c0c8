/*
 * preload/sample_set.h - the set of live sampled blocks, so that a free is
 * recorded exactly when its block's allocation was (sampled mode).
 *
 * Hash buckets of block addresses behind a bitmap of non-empty buckets
 * (2^18 bits, 32 KiB): a free of an unsampled block costs a hash and two
 * relaxed loads (the bitmap's address, a word of it), with no lock and no
 * shared write.  The buckets share chains, 1024 at first (8 KiB of heads),
 * four times as many whenever the live samples pass two per chain, up to
 * one per bucket (2 MiB); a grow takes every stripe lock.  The bitmap and
 * the stripes are one mapping made at the first sample, the chain heads
 * another, not static arrays: a conservative collector (libgc) scans the
 * library's writable segment and sizes its heap by what it scans.  Buckets are guarded by 256 striped
 * locks, taken only for sampled blocks and for the few frees whose bucket
 * is shared with a live sample.  A block enters
 * the set before its allocation returns and leaves it before the real free,
 * so another thread that gets the address back from the allocator finds it
 * absent, and a thread freeing a block it got from another one sees the
 * bit through the hand-over that gave it the pointer.  Never calls malloc
 * (nodes come from 64 KiB chunks, 16 at a time to a stripe).
 */
#ifndef MPROF_PRELOAD_SAMPLE_SET_H
#define MPROF_PRELOAD_SAMPLE_SET_H

#include <stdatomic.h>
#include <stdint.h>

#define SAMPLE_SET_BUCKETS_LOG 18

/* The bitmap of non-empty buckets ((1 << SAMPLE_SET_BUCKETS_LOG) bits),
 * NULL until the first insert: then no bucket is non-empty. */
extern _Atomic(_Atomic uint64_t *) sample_set_bits;

/* The bucket of address addr. */
static inline uint32_t sample_set_bucket(const void *addr)
{
	return (uint32_t)((((uintptr_t)addr >> 4) * 0x9e3779b97f4a7c15ull) >>
			  (64 - SAMPLE_SET_BUCKETS_LOG));
}

/* Adds addr.  Returns 0, or -1 when no memory could be mapped for it (the
 * caller then does not record the block). */
int sample_set_insert(const void *addr);

/* The slow part of sample_set_remove: the bucket is not empty. */
int sample_set_remove_locked_path(const void *addr, uint32_t bucket);

/* 0 when addr is surely not in the set (its bucket is empty): one relaxed
 * load, no lock; else 1. */
static inline int sample_set_may_hold(const void *addr)
{
	uint32_t b = sample_set_bucket(addr);
	_Atomic uint64_t *bits = atomic_load_explicit(&sample_set_bits, memory_order_relaxed);

	return bits && ((atomic_load_explicit(&bits[b / 64], memory_order_relaxed) >> (b % 64)) & 1);
}

/* Removes addr; returns 1 when it was in the set, else 0. */
static inline int sample_set_remove(const void *addr)
{
	if (__builtin_expect(!sample_set_may_hold(addr), 1))
		return 0;
	return sample_set_remove_locked_path(addr, sample_set_bucket(addr));
}

/* sample_set_remove for a free that interrupted this thread inside the
 * recorder (a signal handler): takes no lock it would wait for, as the
 * interrupted code may hold it.  Returns 1 when addr was in the set and is
 * out now, 0 when it was not, -1 when its stripe was locked. */
int sample_set_remove_nested(const void *addr);

/* Fork: prepare takes every stripe lock, parent and child give them back. */
void sample_set_fork_prepare(void);
void sample_set_fork_release(void);

#endif
