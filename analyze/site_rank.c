/*
 * analyze/site_rank.c - the top N sites of a ranking (site_rank.h), the
 * order of the text report's lists and of the sites a bounded JSON report
 * keeps.
 */
#include <stdlib.h>
#include <string.h>

#include "analyze/site_rank.h"

uint64_t site_rank_value(const struct site *s, enum site_rank k)
{
	switch (k) {
	case SITE_RANK_PEAK: return s->s->peak_bytes;
	case SITE_RANK_LEAKED: return s->s->live_bytes;
	case SITE_RANK_ALLOCATED: return s->s->allocated_bytes;
	case SITE_RANK_ALLOCATIONS: return s->s->allocations;
	case SITE_RANK_TEMPORARY: return s->s->temporary;
	case SITE_RANK_COUNT: break;
	}
	return 0;
}

static enum site_rank sort_ranking;
static const struct site *sort_sites;

static int rank_cmp(const void *pa, const void *pb)
{
	const struct site *a = &sort_sites[*(const uint32_t *)pa];
	const struct site *b = &sort_sites[*(const uint32_t *)pb];
	uint64_t va = site_rank_value(a, sort_ranking), vb = site_rank_value(b, sort_ranking);

	if (va != vb)
		return va > vb ? -1 : 1;
	return a->id < b->id ? -1 : a->id > b->id; /* ids follow allocated bytes */
}

/* Puts the first `shown` of order[0..n) by rank_cmp, sorted, in front; the
 * rest of order[] is left undefined (the one-pass way overwrites entries).
 * Fewer than SITE_RANK_SELECT_MAX of many: one pass that keeps the best so far in
 * order, as most sites fall behind the last of them after one compare
 * (cc1's trace: 15 k sites, five rankings of 50; a full qsort of each was a
 * twentieth of the time after the events); otherwise qsort. */
#define SITE_RANK_SELECT_MAX 256u

static void rank_top(uint32_t *order, size_t n, size_t shown)
{
	size_t kept = 0;

	if (shown == 0)
		return;
	if (shown >= SITE_RANK_SELECT_MAX || shown * 4 >= n) {
		qsort(order, n, sizeof(*order), rank_cmp);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		uint32_t v = order[i];
		size_t lo = 0, hi = kept;

		if (kept == shown && rank_cmp(&v, &order[kept - 1]) >= 0)
			continue;
		while (lo < hi) { /* first kept entry that v ranks before */
			size_t mid = lo + (hi - lo) / 2;

			if (rank_cmp(&v, &order[mid]) < 0)
				hi = mid;
			else
				lo = mid + 1;
		}
		if (kept < shown)
			kept++;
		/* order[kept..i] is free: i >= kept, v was read */
		memmove(&order[lo + 1], &order[lo], (kept - 1 - lo) * sizeof(*order));
		order[lo] = v;
	}
}

size_t site_rank_top(const struct site_table *t, enum site_rank k, uint32_t *order,
		     size_t shown)
{
	size_t n = 0;

	for (size_t i = 0; i < t->count; i++)
		if (site_rank_value(&t->sites[i], k))
			order[n++] = (uint32_t)i;
	sort_ranking = k;
	sort_sites = t->sites;
	rank_top(order, n, shown < n ? shown : n);
	return n;
}
