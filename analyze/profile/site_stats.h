/*
 * analyze/profile/site_stats.h - the full records of the allocation sites
 * whose statistics outgrew the compact form (stats_small.h, 72 bytes, in
 * the site) that most sites keep: struct alloc_stats (128 bytes) in a pool
 * that never moves them.  262,145 sites' full records took 32 MiB, the most
 * of a built profile.
 */
#ifndef MPROF_ANALYZE_SITE_STATS_H
#define MPROF_ANALYZE_SITE_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "analyze/aggregate/aggregate.h"

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
