/*
 * analyze/aggregate/timeline.h - the heap over time, built as the events are
 * aggregated: live requested bytes and blocks per time bucket, and the
 * program's RSS as the launcher sampled it.
 *
 * Memory is bounded whatever the trace's length: at most
 * TIMELINE_MAX_POINTS points (and RSS_SERIES_MAX samples, rss_series.h).  A point is a
 * real state of the heap (its sequence number, bytes and blocks), the
 * highest one (first reached) of its time bucket; when the points fill up,
 * buckets double in width and neighbours merge, keeping the higher (the
 * earlier on a tie).  So the maximum within every bucket survives, and the
 * peak (t-gmax) is always a point, exactly.  The last point is the state at
 * the end of the trace.
 */
#ifndef MPROF_ANALYZE_TIMELINE_H
#define MPROF_ANALYZE_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/read/rss_series.h"

#define TIMELINE_MAX_POINTS 1024u          /* points before buckets widen */
#define TIMELINE_FIRST_BUCKET_NS 1000000u  /* 1 ms, doubling as needed */
#define TIMELINE_RSS_UNKNOWN UINT64_MAX
/* A point takes the newest RSS sample at or before it, if not older than this. */
#define TIMELINE_RSS_MATCH_NS 1000000000u

/* One state of the heap. */
struct timeline_point {
	uint64_t time_ns;     /* CLOCK_MONOTONIC: the newest TIME stamp at or before
	                       * seq (states before the first stamp get its time) */
	uint64_t seq;         /* the sequence number of the state */
	uint64_t heap_bytes;  /* live requested bytes (weighted) */
	uint64_t heap_blocks; /* live blocks (weighted) */
	uint64_t rss_bytes;   /* the newest RSS sample at or before time_ns (within
	                       * TIMELINE_RSS_MATCH_NS), or TIMELINE_RSS_UNKNOWN */
};

struct timeline {
	struct timeline_point *points; /* time order; owned; count <= MAX + 1 */
	size_t count;
	const struct rss_series *rss;  /* the trace's RSS samples (not owned), or NULL */

	/* while building: the open bucket's highest state */
	struct timeline_point cur;
	bool started;                  /* a TIME stamp was seen: origin is known */
	uint64_t origin_ns, bucket_ns, bucket_end_ns;
};

/* Returns 0 or -ENOMEM. */
int timeline_init(struct timeline *t);
void timeline_free(struct timeline *t);

/* The heap grew to bytes/blocks at seq (time: the newest stamp): the open
 * bucket keeps it if it is its highest state so far. */
static inline void timeline_note_heap(struct timeline *t, uint64_t time_ns, uint64_t seq,
				      uint64_t bytes, uint64_t blocks)
{
	if (bytes > t->cur.heap_bytes) {
		t->cur.time_ns = time_ns;
		t->cur.seq = seq;
		t->cur.heap_bytes = bytes;
		t->cur.heap_blocks = blocks;
	}
}

/* Time moved forward to now_ns (a TIME stamp); the heap is bytes/blocks
 * after event seq.  Closes the open bucket when now_ns is past it. */
void timeline_note_time(struct timeline *t, uint64_t now_ns, uint64_t seq, uint64_t bytes,
			uint64_t blocks);

/* End of the trace: closes the open bucket and adds the final state (at
 * time now_ns, after event seq). */
void timeline_finish(struct timeline *t, uint64_t now_ns, uint64_t seq, uint64_t bytes,
		     uint64_t blocks);

/* Gives each point its RSS from samples (the trace's, kept by the
 * caller for as long as t), and keeps them as t->rss. */
void timeline_match_rss(struct timeline *t, const struct rss_series *samples);

/* Index of the first point with the highest heap_bytes (the peak), or 0
 * when there are no points. */
size_t timeline_peak_index(const struct timeline *t);

#endif
