/*
 * analyze/aggregate/agg_read.c - aggregate_read_trace (agg_read.h): the
 * reader, then the time window (if any) on the reader's thread, then the
 * aggregation, on a thread of its own once the trace proves large.
 */
#include <errno.h>
#include <stdio.h>

#include "analyze/aggregate/agg_read.h"
#include "analyze/aggregate/agg_thread.h"

static bool aggregator_failed(void *ctx)
{
	return agg_thread_failed(ctx);
}

int aggregate_read_trace(const char *path, struct trace_info *info, struct stack_nodes *nodes,
			 struct module_maps *maps, struct aggregate *agg, char *errbuf,
			 size_t errbuf_bytes)
{
	return aggregate_read_trace_window(path, info, nodes, maps, agg, NULL, errbuf,
					   errbuf_bytes);
}

int aggregate_read_trace_window(const char *path, struct trace_info *info,
				struct stack_nodes *nodes, struct module_maps *maps,
				struct aggregate *agg, struct window_sink *w, char *errbuf,
				size_t errbuf_bytes)
{
	struct agg_thread *aggregator = agg_thread_start_after(agg, AGG_READ_INLINE_EVENTS);
	struct event_sink sink, window;
	int rc;

	if (!aggregator) {
		snprintf(errbuf, errbuf_bytes, "%s: out of memory", path);
		return -ENOMEM;
	}
	sink.emit = agg_thread_emit;
	sink.failed = aggregator_failed;
	sink.ctx = aggregator;
	sink.seq_limit = agg->seq_limit;
	sink.done = NULL;
	sink.limit_reached = NULL;
	sink.emit_run = agg_thread_emit_run;
	if (w) {
		/* the window filters on the reader's thread, in front */
		w->next = &sink;
		window_sink_bind(w, &window);
	}
	rc = event_stream_read(path, info, nodes, maps, w ? &window : &sink, errbuf, errbuf_bytes);
	if (w)
		window_sink_flush(w);
	trace_info_order_stamps(info); /* no event names a marker by index now */
	if (rc == 0 && w && w->error) {
		rc = w->error;
		snprintf(errbuf, errbuf_bytes, "%s: out of memory", path);
	}
	agg_thread_stop(aggregator); /* the aggregation is the caller's again */
	if (rc == 0) {
		aggregate_finish(agg);
		rc = agg->error;
		if (rc)
			snprintf(errbuf, errbuf_bytes, "%s: out of memory", path);
	}
	return rc;
}
