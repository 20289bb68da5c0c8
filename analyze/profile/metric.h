/*
 * analyze/profile/metric.h - the numbers a report ranks, charts and compares
 * sites by (--metric), written once: their names, units, the value of a
 * site's statistics or of a process's totals, and the top N sites.
 */
#ifndef MPROF_ANALYZE_METRIC_H
#define MPROF_ANALYZE_METRIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/profile/sites.h"
#include "analyze/profile/summary.h"

enum metric {
	METRIC_PEAK,           /* bytes live at t-gmax */
	METRIC_LEAKED,         /* bytes live at exit */
	METRIC_ALLOCATED,      /* bytes allocated */
	METRIC_ALLOCATIONS,    /* allocations */
	METRIC_TEMPORARY,      /* temporary allocations */
	METRIC_RANKED,         /* the metrics above are the report's rankings */
	METRIC_PEAK_BLOCKS = METRIC_RANKED, /* blocks live at t-gmax */
	METRIC_LEAKED_BLOCKS,  /* blocks live at exit */
	METRIC_COUNT
};

struct metric_info {
	const char *name;      /* --metric NAME ("peak") */
	const char *key;       /* JSON key ("peak_bytes") */
	const char *label;     /* in text ("peak bytes") */
	bool bytes;            /* a number of bytes, else a count */
};

/* The description of m (m < METRIC_COUNT). */
const struct metric_info *metric_info(enum metric m);

/* The metric called name (its --metric name), or -1. */
int metric_parse(const char *name);

/* The --metric names, "peak, leaked, ..." (for messages and --help). */
const char *metric_names(void);

/* The value of m in a site's statistics (full, or compact: stats_small.h) /
 * in a process's totals. */
uint64_t metric_stats_value(const struct alloc_stats *s, enum metric m);
uint64_t metric_small_value(const struct stats_small *s, enum metric m);
uint64_t metric_summary_value(const struct heap_summary *h, enum metric m);

/* Site s's value of m. */
static inline uint64_t metric_site_value(const struct site *s, enum metric m)
{
	if (s->stats_full)
		return metric_stats_value(s->st.full, m);
	return metric_small_value(&s->st.small, m);
}

/*
 * Puts into order[] (room for t->count entries) the indices of t's sites
 * whose value of m is not 0, the first `shown` of them best first (ties by
 * site id) and the rest in no given order.  Returns how many sites have a
 * value.
 */
size_t metric_top_sites(const struct site_table *t, enum metric m, uint32_t *order,
			size_t shown);

#endif
