/*
 * analyze/profile/metric.c - the metrics (metric.h) and the top N sites of
 * one, the order of the text report's lists and of the sites a bounded
 * JSON report keeps.
 */
#define _GNU_SOURCE /* qsort_r */
#include <stdlib.h>
#include <string.h>

#include "analyze/profile/metric.h"

static const struct metric_info metrics[METRIC_COUNT] = {
	[METRIC_PEAK] = {"peak", "peak_bytes", "peak bytes", true},
	[METRIC_LEAKED] = {"leaked", "leaked_bytes", "leaked bytes", true},
	[METRIC_ALLOCATED] = {"allocated", "allocated_bytes", "allocated bytes", true},
	[METRIC_ALLOCATIONS] = {"allocations", "allocations", "allocations", false},
	[METRIC_TEMPORARY] = {"temporary", "temporary", "temporary", false},
	[METRIC_PEAK_BLOCKS] = {"peak-blocks", "peak_blocks", "peak blocks", false},
	[METRIC_LEAKED_BLOCKS] = {"leaked-blocks", "leaked_blocks", "leaked blocks", false},
};

const struct metric_info *metric_info(enum metric m)
{
	return &metrics[m < METRIC_COUNT ? m : 0];
}

int metric_parse(const char *name)
{
	for (int m = 0; m < METRIC_COUNT; m++)
		if (strcmp(name, metrics[m].name) == 0)
			return m;
	return -1;
}

const char *metric_names(void)
{
	return "peak, leaked, allocated, allocations, temporary, peak-blocks, leaked-blocks";
}

/* The figure of metric m in rec, any record that names its figures as
 * struct alloc_stats does (the small site record, the heap summary). */
#define METRIC_FIELD(rec, m)                                                   \
	((m) == METRIC_PEAK ? (uint64_t)(rec)->peak_bytes :                     \
	 (m) == METRIC_LEAKED ? (uint64_t)(rec)->live_bytes :                   \
	 (m) == METRIC_ALLOCATED ? (uint64_t)(rec)->allocated_bytes :           \
	 (m) == METRIC_ALLOCATIONS ? (uint64_t)(rec)->allocations :             \
	 (m) == METRIC_TEMPORARY ? (uint64_t)(rec)->temporary :                 \
	 (m) == METRIC_PEAK_BLOCKS ? (uint64_t)(rec)->peak_blocks :             \
	 (m) == METRIC_LEAKED_BLOCKS ? (uint64_t)(rec)->live_blocks : 0)

uint64_t metric_stats_value(const struct alloc_stats *s, enum metric m)
{
	return METRIC_FIELD(s, m);
}

uint64_t metric_small_value(const struct stats_small *s, enum metric m)
{
	return METRIC_FIELD(s, m);
}

uint64_t metric_summary_value(const struct heap_summary *h, enum metric m)
{
	return METRIC_FIELD(h, m);
}

struct rank_ctx {
	enum metric m;
	const struct site *sites;
};

static int rank_cmp(const void *pa, const void *pb, void *ctx)
{
	const struct rank_ctx *c = ctx;
	const struct site *a = &c->sites[*(const uint32_t *)pa];
	const struct site *b = &c->sites[*(const uint32_t *)pb];
	uint64_t va = metric_site_value(a, c->m), vb = metric_site_value(b, c->m);

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

static void rank_top(uint32_t *order, size_t n, size_t shown, struct rank_ctx *c)
{
	size_t kept = 0;

	if (shown == 0)
		return;
	if (shown >= SITE_RANK_SELECT_MAX || shown * 4 >= n) {
		qsort_r(order, n, sizeof(*order), rank_cmp, c);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		uint32_t v = order[i];
		size_t lo = 0, hi = kept;

		if (kept == shown && rank_cmp(&v, &order[kept - 1], c) >= 0)
			continue;
		while (lo < hi) { /* first kept entry that v ranks before */
			size_t mid = lo + (hi - lo) / 2;

			if (rank_cmp(&v, &order[mid], c) < 0)
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

size_t metric_top_sites(const struct site_table *t, enum metric m, uint32_t *order,
			size_t shown)
{
	struct rank_ctx c = {m, t->sites};
	size_t n = 0;

	for (size_t i = 0; i < t->count; i++)
		if (metric_site_value(&t->sites[i], m))
			order[n++] = (uint32_t)i;
	rank_top(order, n, shown < n ? shown : n, &c);
	return n;
}
