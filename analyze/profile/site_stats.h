/*
 * analyze/profile/site_stats.h - an allocation site's statistics in a
 * small form: 64 bytes of 32-bit figures while every one fits, else a full
 * struct alloc_stats (128 bytes) kept in a pool that never moves it.  Most
 * sites of a program with hundreds of thousands of them have a few blocks
 * (262,145 sites' full records took 32 MiB, the most of a built profile).
 * The small form holds the same numbers: reading it back gives the full
 * record exactly.
 */
#ifndef MPROF_ANALYZE_SITE_STATS_H
#define MPROF_ANALYZE_SITE_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/aggregate/aggregate.h"

/* struct alloc_stats in 32-bit figures; the minima as value + 1, so that
 * all zero bytes are empty statistics (alloc_stats_init's). */
struct site_stats_small {
	uint32_t allocations, allocated_bytes, live_bytes, live_blocks;
	uint32_t max_live_bytes, max_live_blocks, peak_bytes, peak_blocks;
	uint32_t temporary, freed;
	uint32_t lifetime_events_sum, lifetime_events_min_plus1, lifetime_events_max;
	uint32_t lifetime_ns_sum, lifetime_ns_min_plus1, lifetime_ns_max;
};

/* Writes s into *out when each of its figures fits 32 bits (each minimum
 * + 1, wrapping, so UINT64_MAX, "none", fits) and returns true; returns
 * false with *out unchanged otherwise. */
bool site_stats_to_small(const struct alloc_stats *s, struct site_stats_small *out);

/* The full statistics that small holds, into *out. */
static inline void site_stats_from_small(const struct site_stats_small *small,
					 struct alloc_stats *out)
{
	*out = (struct alloc_stats){
		.allocations = small->allocations,
		.allocated_bytes = small->allocated_bytes,
		.live_bytes = small->live_bytes,
		.live_blocks = small->live_blocks,
		.max_live_bytes = small->max_live_bytes,
		.max_live_blocks = small->max_live_blocks,
		.peak_bytes = small->peak_bytes,
		.peak_blocks = small->peak_blocks,
		.temporary = small->temporary,
		.freed = small->freed,
		.lifetime_events_sum = small->lifetime_events_sum,
		.lifetime_events_min = (uint64_t)small->lifetime_events_min_plus1 - 1,
		.lifetime_events_max = small->lifetime_events_max,
		.lifetime_ns_sum = small->lifetime_ns_sum,
		.lifetime_ns_min = (uint64_t)small->lifetime_ns_min_plus1 - 1,
		.lifetime_ns_max = small->lifetime_ns_max,
	};
}

/* Full records of the sites whose figures outgrew the small form, in
 * chunks that are never moved (a site points at its record). */
struct site_stats_chunk;
struct site_stats_pool {
	struct site_stats_chunk *chunks; /* newest first; owned */
	size_t used;                     /* records handed out of the newest */
	size_t count;                    /* records handed out in all */
};

/* A new record from pool (uninitialized; valid until site_stats_pool_free),
 * or NULL on ENOMEM. */
struct alloc_stats *site_stats_pool_new(struct site_stats_pool *pool);

/* Frees every record of pool and empties it. */
void site_stats_pool_free(struct site_stats_pool *pool);

#endif
