/*
 * analyze/profile/site_stats.c - a site's statistics in 32-bit figures,
 * and the pool of the full records of those that do not fit them.  Owns
 * the pool's chunks; knows nothing of sites or how they are summed.
 */
#include <stdlib.h>

#include "analyze/profile/site_stats.h"

/* Full records a chunk holds: 32 KiB, so that a profile with a few of
 * them spends little, and one with many makes few calls. */
#define SITE_STATS_CHUNK_RECORDS 256

struct site_stats_chunk {
	struct site_stats_chunk *next;
	struct alloc_stats records[SITE_STATS_CHUNK_RECORDS];
};

/* Whether v fits a 32-bit figure. */
static bool fits32(uint64_t v)
{
	return v <= UINT32_MAX;
}

bool site_stats_to_small(const struct alloc_stats *s, struct site_stats_small *out)
{
	uint64_t ev_min_plus1 = s->lifetime_events_min + 1, ns_min_plus1 = s->lifetime_ns_min + 1;

	if (!fits32(s->allocations | s->allocated_bytes | s->live_bytes | s->live_blocks |
		    s->max_live_bytes | s->max_live_blocks | s->peak_bytes | s->peak_blocks |
		    s->temporary | s->freed | s->lifetime_events_sum | ev_min_plus1 |
		    s->lifetime_events_max | s->lifetime_ns_sum | ns_min_plus1 |
		    s->lifetime_ns_max))
		return false;
	*out = (struct site_stats_small){
		.allocations = (uint32_t)s->allocations,
		.allocated_bytes = (uint32_t)s->allocated_bytes,
		.live_bytes = (uint32_t)s->live_bytes,
		.live_blocks = (uint32_t)s->live_blocks,
		.max_live_bytes = (uint32_t)s->max_live_bytes,
		.max_live_blocks = (uint32_t)s->max_live_blocks,
		.peak_bytes = (uint32_t)s->peak_bytes,
		.peak_blocks = (uint32_t)s->peak_blocks,
		.temporary = (uint32_t)s->temporary,
		.freed = (uint32_t)s->freed,
		.lifetime_events_sum = (uint32_t)s->lifetime_events_sum,
		.lifetime_events_min_plus1 = (uint32_t)ev_min_plus1,
		.lifetime_events_max = (uint32_t)s->lifetime_events_max,
		.lifetime_ns_sum = (uint32_t)s->lifetime_ns_sum,
		.lifetime_ns_min_plus1 = (uint32_t)ns_min_plus1,
		.lifetime_ns_max = (uint32_t)s->lifetime_ns_max,
	};
	return true;
}

struct alloc_stats *site_stats_pool_new(struct site_stats_pool *pool)
{
	if (!pool->chunks || pool->used == SITE_STATS_CHUNK_RECORDS) {
		struct site_stats_chunk *c = malloc(sizeof(*c));

		if (!c)
			return NULL;
		c->next = pool->chunks;
		pool->chunks = c;
		pool->used = 0;
	}
	pool->count++;
	return &pool->chunks->records[pool->used++];
}

void site_stats_pool_free(struct site_stats_pool *pool)
{
	while (pool->chunks) {
		struct site_stats_chunk *c = pool->chunks;

		pool->chunks = c->next;
		free(c);
	}
	pool->used = 0;
	pool->count = 0;
}
