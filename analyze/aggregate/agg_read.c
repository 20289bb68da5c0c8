/*
 * analyze/aggregate/agg_read.c - aggregate_read_trace (agg_read.h).
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
	struct agg_thread *aggregator = agg_thread_start(agg);
	struct event_sink sink;
	int rc;

	if (!aggregator) {
		snprintf(errbuf, errbuf_bytes, "%s: out of memory", path);
		return -ENOMEM;
	}
	sink.emit = agg_thread_emit;
	sink.failed = aggregator_failed;
	sink.ctx = aggregator;
	sink.seq_limit = agg->seq_limit;
	rc = event_stream_read(path, info, nodes, maps, &sink, errbuf, errbuf_bytes);
	agg_thread_stop(aggregator); /* the aggregation is the caller's again */
	if (rc == 0) {
		aggregate_finish(agg);
		rc = agg->error;
		if (rc)
			snprintf(errbuf, errbuf_bytes, "%s: out of memory", path);
	}
	return rc;
}
