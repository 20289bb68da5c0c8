/*
 * analyze/aggregate/agg_read.h - a trace read into an aggregation: the
 * reader (read/event_stream.h) with the aggregation (agg_thread.h, on a
 * thread of its own after the first 65536 events) as its sink.
 */
#ifndef MPROF_ANALYZE_AGG_READ_H
#define MPROF_ANALYZE_AGG_READ_H

#include <stddef.h>

#include "analyze/aggregate/aggregate.h"
#include "analyze/aggregate/window.h"
#include "analyze/read/event_stream.h"

/* Events aggregated on the reader's thread before the aggregation thread
 * starts: a trace of fewer makes no thread, whose start and hand-overs
 * cost more than the overlap saves there (bench/HISTORY.md, "many small
 * traces"). */
#define AGG_READ_INLINE_EVENTS 65536u

/*
 * Reads the trace at path as event_stream_read does (its markers and
 * controls then in sequence order: trace_info_order_stamps), aggregating every
 * allocator event into agg (initialized; its seq_limit bounds the read)
 * and finishing it (aggregate_finish).  Returns 0, -ENOMEM, or another
 * negative errno with a message naming the path in errbuf.
 */
int aggregate_read_trace(const char *path, struct trace_info *info, struct stack_nodes *nodes,
			 struct module_maps *maps, struct aggregate *agg, char *errbuf,
			 size_t errbuf_bytes);

/* As aggregate_read_trace, the events going through the time window w
 * (initialized for this read; NULL: none) before the aggregation. */
int aggregate_read_trace_window(const char *path, struct trace_info *info,
				struct stack_nodes *nodes, struct module_maps *maps,
				struct aggregate *agg, struct window_sink *w, char *errbuf,
				size_t errbuf_bytes);

#endif
