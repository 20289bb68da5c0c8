/*
 * analyze/aggregate/timeline.c - the heap over time (timeline.h): time
 * buckets that widen as the trace goes on, each keeping its highest state,
 * and the RSS samples matched to them.
 *
 * Owns the points.  Called per TIME stamp, never per allocator event
 * (timeline_note_heap is the per-event part, inline); never allocates
 * after timeline_init.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/aggregate/timeline.h"

int timeline_init(struct timeline *t)
{
	memset(t, 0, sizeof(*t));
	t->points = calloc(TIMELINE_MAX_POINTS + 1, sizeof(*t->points));
	t->bucket_ns = TIMELINE_FIRST_BUCKET_NS;
	return t->points ? 0 : -ENOMEM;
}

void timeline_free(struct timeline *t)
{
	free(t->points);
	memset(t, 0, sizeof(*t));
}

/* The bucket of a time under the current width. */
static uint64_t bucket_of(const struct timeline *t, uint64_t time_ns)
{
	return time_ns > t->origin_ns ? (time_ns - t->origin_ns) / t->bucket_ns : 0;
}

/* Doubles the buckets' width and merges the points that now share one,
 * keeping the higher state (the earlier on a tie). */
static void widen(struct timeline *t)
{
	size_t n = 0;

	t->bucket_ns *= 2;
	for (size_t i = 0; i < t->count; i++) {
		const struct timeline_point *p = &t->points[i];

		if (n && bucket_of(t, t->points[n - 1].time_ns) == bucket_of(t, p->time_ns)) {
			if (p->heap_bytes > t->points[n - 1].heap_bytes)
				t->points[n - 1] = *p;
		} else {
			t->points[n++] = *p;
		}
	}
	t->count = n;
}

/* Appends the open bucket's state, merged into the last point when the
 * buckets widened under them both. */
static void push(struct timeline *t, const struct timeline_point *p)
{
	struct timeline_point *last;

	/* points far apart may need several doublings before two share one */
	while (t->count >= TIMELINE_MAX_POINTS)
		widen(t);
	last = t->count ? &t->points[t->count - 1] : NULL;
	if (last && bucket_of(t, last->time_ns) == bucket_of(t, p->time_ns)) {
		if (p->heap_bytes > last->heap_bytes)
			*last = *p;
		return;
	}
	t->points[t->count++] = *p;
}

static void open_bucket(struct timeline *t, uint64_t now_ns, uint64_t seq, uint64_t bytes,
			uint64_t blocks)
{
	t->cur = (struct timeline_point){ now_ns, seq, bytes, blocks, TIMELINE_RSS_UNKNOWN };
	t->bucket_end_ns = t->origin_ns + (bucket_of(t, now_ns) + 1) * t->bucket_ns;
}

void timeline_note_time(struct timeline *t, uint64_t now_ns, uint64_t seq, uint64_t bytes,
			uint64_t blocks)
{
	if (!t->started) {
		/* the states before the first stamp are in its bucket */
		t->started = true;
		t->origin_ns = now_ns;
		t->cur.time_ns = now_ns;
		t->bucket_end_ns = now_ns + t->bucket_ns;
		return;
	}
	if (now_ns < t->bucket_end_ns)
		return;
	t->cur.rss_bytes = TIMELINE_RSS_UNKNOWN;
	push(t, &t->cur);
	open_bucket(t, now_ns, seq, bytes, blocks);
}

void timeline_finish(struct timeline *t, uint64_t now_ns, uint64_t seq, uint64_t bytes,
		     uint64_t blocks)
{
	struct timeline_point end = { now_ns, seq, bytes, blocks, TIMELINE_RSS_UNKNOWN };

	t->cur.rss_bytes = TIMELINE_RSS_UNKNOWN;
	push(t, &t->cur);
	if (end.time_ns < t->points[t->count - 1].time_ns)
		end.time_ns = t->points[t->count - 1].time_ns;
	/* the end state, unless the last point is it already (room: MAX + 1) */
	if (t->points[t->count - 1].seq != seq || t->points[t->count - 1].heap_bytes != bytes)
		t->points[t->count++] = end;
}

void timeline_match_rss(struct timeline *t, const struct rss_series *samples)
{
	size_t j = 0;

	t->rss = samples;
	for (size_t i = 0; i < t->count; i++) {
		struct timeline_point *p = &t->points[i];

		while (j < samples->count && samples->v[j].time_ns <= p->time_ns)
			j++;
		p->rss_bytes = TIMELINE_RSS_UNKNOWN;
		if (j && p->time_ns - samples->v[j - 1].time_ns <= TIMELINE_RSS_MATCH_NS)
			p->rss_bytes = samples->v[j - 1].rss_bytes;
	}
}

size_t timeline_peak_index(const struct timeline *t)
{
	size_t best = 0;

	for (size_t i = 1; i < t->count; i++)
		if (t->points[i].heap_bytes > t->points[best].heap_bytes)
			best = i;
	return best;
}
