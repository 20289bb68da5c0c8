/*
 * analyze/read/rss_series.c - the RSS samples of a trace (rss_series.h):
 * decoding RSS chunks and keeping the samples bounded.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/read/rss_series.h"
#include "trace/varint.h"

int rss_series_add(struct rss_series *s, uint64_t time_ns, uint64_t rss_bytes)
{
	if (s->count && time_ns < s->v[s->count - 1].time_ns)
		return 0;
	if (!s->v) {
		s->v = calloc(RSS_SERIES_MAX, sizeof(*s->v));
		if (!s->v)
			return -ENOMEM;
		s->merged = 1;
	}
	if (s->count == RSS_SERIES_MAX) {
		for (size_t i = 0; i < RSS_SERIES_MAX / 2; i++) {
			const struct rss_sample *a = &s->v[2 * i], *b = &s->v[2 * i + 1];

			s->v[i] = b->rss_bytes > a->rss_bytes ? *b : *a;
		}
		s->count = RSS_SERIES_MAX / 2;
		s->merged *= 2;
	}
	s->v[s->count++] = (struct rss_sample){ time_ns, rss_bytes };
	return 0;
}

int rss_series_decode(struct rss_series *s, const uint8_t *data, size_t bytes)
{
	const uint8_t *p = data, *end = data + bytes;
	uint64_t n, time_ns = 0;

	if (varint_get_u64(&p, end, &n) < 0)
		return -EINVAL;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t dt, kib;
		int rc;

		if (varint_get_u64(&p, end, &dt) < 0 || varint_get_u64(&p, end, &kib) < 0 ||
		    dt > UINT64_MAX - time_ns || kib > UINT64_MAX / 1024)
			return -EINVAL;
		time_ns += dt;
		rc = rss_series_add(s, time_ns, kib * 1024);
		if (rc < 0)
			return rc;
	}
	return p == end ? 0 : -EINVAL;
}

void rss_series_free(struct rss_series *s)
{
	free(s->v);
	memset(s, 0, sizeof(*s));
}
