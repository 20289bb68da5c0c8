/*
 * analyze/read/rss_series.h - the program's resident set size over time, as
 * the launcher sampled it into the trace's RSS chunks (mprof-trace(5)).
 *
 * Bounded whatever the run's length: at most RSS_SERIES_MAX samples; when
 * they are full, neighbours merge into the higher one, so that no maximum
 * is lost (each kept sample is then the highest of `merged` samples).
 */
#ifndef MPROF_ANALYZE_RSS_SERIES_H
#define MPROF_ANALYZE_RSS_SERIES_H

#include <stddef.h>
#include <stdint.h>

#define RSS_SERIES_MAX 4096u

/* One sample of the process's RSS. */
struct rss_sample {
	uint64_t time_ns;     /* CLOCK_MONOTONIC, the clock of TIME records */
	uint64_t rss_bytes;   /* resident set size */
};

struct rss_series {
	struct rss_sample *v; /* time order; owned (NULL: none yet) */
	size_t count;
	uint64_t merged;      /* samples each kept one stands for (0 or 1: one) */
};

/* Adds a sample; one older than the newest is dropped.  Returns 0 or
 * -ENOMEM. */
int rss_series_add(struct rss_series *s, uint64_t time_ns, uint64_t rss_bytes);

/*
 * Decodes the payload of an RSS chunk (data, bytes) into s: u count, then
 * count times u time delta (ns; the first from 0) and u rss in KiB.
 * Returns 0, -EINVAL when the payload is malformed (the samples before the
 * fault are kept) or -ENOMEM.
 */
int rss_series_decode(struct rss_series *s, const uint8_t *data, size_t bytes);

void rss_series_free(struct rss_series *s);

#endif
