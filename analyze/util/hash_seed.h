/*
 * analyze/util/hash_seed.h - the seed of the report's hash tables whose keys come
 * from the trace (block addresses, stack ids, thread ids), and the mix
 * that uses it.
 *
 * A trace is input like any other: one written to collide (keys chosen so
 * that an unseeded hash puts them all in one probe run) made a report of
 * a 172 KB trace take 37 s instead of 0.13 s, and 4096 thread ids chosen
 * the same way took 28 s (found by fuzzing, 2026-12-02).  With a seed drawn
 * per process, which keys collide cannot be known when the trace is
 * written.  The tables' orders never reach a report, so reports do not
 * change from run to run.  The idea is SipHash's and the other keyed hashes
 * that language runtimes adopted against hash flooding (Aumasson and
 * Bernstein, 2012); here the mix stays murmur3's finalizer, a bijection, so
 * distinct keys keep distinct hashes.
 */
#ifndef MPROF_ANALYZE_HASH_SEED_H
#define MPROF_ANALYZE_HASH_SEED_H

#include <stdint.h>

/* 0 until hash_seed_init: tables then work, only unseeded (unit tests). */
extern uint64_t hash_seed;

/* Draws hash_seed (getrandom; the clock and the pid when that fails).
 * Call once, before any table is used. */
void hash_seed_init(void);

/* murmur3's 64-bit finalizer of key ^ hash_seed: every bit of the key
 * moves every bit of the result. */
static inline uint64_t hash_mix64(uint64_t key)
{
	uint64_t h = key ^ hash_seed;

	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	return h;
}

#endif
