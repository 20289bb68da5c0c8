/*
 * analyze/profile/site_stats.c - the pool of the full records of the sites
 * whose statistics do not fit the compact form.  Owns the pool's chunks;
 * knows nothing of sites or how they are summed.
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
