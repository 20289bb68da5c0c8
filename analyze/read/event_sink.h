/*
 * analyze/read/event_sink.h - where the reader hands a trace's allocator
 * events, in exact sequence order (reorder.h merges them): the aggregation
 * (aggregate/agg_read.c), or any other consumer (a time window, a test).
 * The reader knows nothing of what is behind it.
 */
#ifndef MPROF_ANALYZE_EVENT_SINK_H
#define MPROF_ANALYZE_EVENT_SINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/read/alloc_event.h"

struct event_sink {
	/* Takes one event (ev is valid only during the call). */
	void (*emit)(void *ctx, const struct alloc_event *ev);
	/* Optional: true once the consumer met an error (out of memory); the
	 * reader then stops and returns -ENOMEM. */
	bool (*failed)(void *ctx);
	/* Optional: true once the consumer wants no more events (a report at a
	 * moment T that has reached T).  The reader then decodes no more
	 * events: it still reads the chunks that may hold stack nodes, module
	 * maps, END and SYMBOLS, and skips the others unread where the trace
	 * says which those are (META stack_stream). */
	bool (*done)(void *ctx);
	void *ctx;
	/* Nonzero: the reader may stop once the events up to this sequence
	 * number are out (a parent's trace read up to a fork). */
	uint64_t seq_limit;
	/*
	 * Optional, with seq_limit: called where the reader would stop for
	 * the limit (after the chunk that took the merge past it), to read
	 * on instead; returns a larger limit to read on to, or 0 to stop
	 * there (a parent's trace read once for the forks of several
	 * children).  waiting_time_ns: the newest TIME stamp that waits for
	 * its thread's next event (0: none), which a read stopping here hands
	 * over last, with sequence number 0, and a read going on later,
	 * before that event.
	 */
	uint64_t (*limit_reached)(void *ctx, uint64_t waiting_time_ns);
	/* Optional: takes n events in merged order at once, as n calls of emit
	 * would (ev[0..n) valid only during the call).  The merge hands over
	 * so the runs of one thread's events that nothing of another thread's
	 * comes between: one call instead of one per event. */
	void (*emit_run)(void *ctx, const struct alloc_event *ev, size_t n);
};

#endif
