/*
 * analyze/read/event_sink.h - where the reader hands a trace's allocator
 * events, in exact sequence order (reorder.h merges them): the aggregation
 * (aggregate/agg_read.c), or any other consumer (a time window, a test).
 * The reader knows nothing of what is behind it.
 */
#ifndef MPROF_ANALYZE_EVENT_SINK_H
#define MPROF_ANALYZE_EVENT_SINK_H

#include <stdbool.h>
#include <stdint.h>

#include "analyze/read/alloc_event.h"

struct event_sink {
	/* Takes one event (ev is valid only during the call). */
	void (*emit)(void *ctx, const struct alloc_event *ev);
	/* Optional: true once the consumer met an error (out of memory); the
	 * reader then stops and returns -ENOMEM. */
	bool (*failed)(void *ctx);
	void *ctx;
	/* Nonzero: the reader may stop once the events up to this sequence
	 * number are out (a parent's trace read up to a fork). */
	uint64_t seq_limit;
};

#endif
