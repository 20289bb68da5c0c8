/*
 * analyze/site_rank.h - the rankings of a report's sites: the top N by
 * peak, leaked, allocated bytes, allocations or temporary allocations.
 */
#ifndef MPROF_ANALYZE_SITE_RANK_H
#define MPROF_ANALYZE_SITE_RANK_H

#include <stddef.h>
#include <stdint.h>

#include "analyze/sites.h"

enum site_rank {
	SITE_RANK_PEAK,        /* bytes live at t-gmax */
	SITE_RANK_LEAKED,      /* bytes live at exit */
	SITE_RANK_ALLOCATED,   /* bytes allocated */
	SITE_RANK_ALLOCATIONS, /* allocations */
	SITE_RANK_TEMPORARY,   /* temporary allocations */
	SITE_RANK_COUNT
};

/* Site s's value in ranking k. */
uint64_t site_rank_value(const struct site *s, enum site_rank k);

/*
 * Puts into order[] (room for t->count entries) the indices of t's sites
 * whose value in ranking k is not 0, the first `shown` of them best first
 * (ties by site id) and the rest in no given order.  Returns how many sites
 * have a value.  Not reentrant (the sort's comparison reads a static).
 */
size_t site_rank_top(const struct site_table *t, enum site_rank k, uint32_t *order,
		     size_t shown);

#endif
