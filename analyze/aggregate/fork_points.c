/*
 * analyze/aggregate/fork_points.c - fork_points_read (fork_points.h): one
 * read of a parent's trace that stops at each child's fork as a read up to
 * that fork alone would, and goes on.
 *
 * A read up to fork seq S aggregates the events of seq <= S that the reader
 * hands over until it stops, after the chunk that took the merge past S
 * (event_sink.h, seq_limit).  So here the events past the current fork
 * wait in a list, in the order they came, until the reader would have
 * stopped (the sink's limit_reached); fn then sees the aggregation, and
 * the next fork's events among those waiting go on to it.  That keeps the
 * order of a read of its own unless an event at or before the current fork
 * comes after one past it (a late event, after a gap): then this read ends
 * after the current fork.  Owns the list; the aggregation is the caller's.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "analyze/aggregate/agg_read.h"
#include "analyze/aggregate/agg_thread.h"
#include "analyze/aggregate/fork_points.h"
#include "analyze/read/event_stream.h"

struct fork_read {
	struct aggregate *agg;
	struct agg_thread *aggregator; /* NULL while fn runs or the read is over */
	const uint64_t *seqs;
	size_t n, next;                /* seqs[next] is the current fork */
	uint64_t limit;                /* seqs[next] */
	fork_point_fn fn;
	void *ctx;
	struct alloc_event *waiting;   /* past the current fork, in order */
	size_t waiting_count, waiting_cap;
	bool time_passed;              /* a TIME stamp went to the aggregation */
	bool late;                     /* an event came after one past the
	                                * fork it belongs to */
	bool stopped;                  /* no more forks: events are dropped */
	int error;                     /* ours or fn's, first */
};

static void pass_on(struct fork_read *r, const struct alloc_event *ev)
{
	if (r->aggregator)
		agg_thread_emit(r->aggregator, ev);
	else
		aggregate_event(r->agg, ev);
}

/* An event for the current fork (aggregated) or a later one (kept). */
static void route(struct fork_read *r, const struct alloc_event *ev)
{
	if (ev->seq <= r->limit) {
		/* a read of its own would aggregate it before those waiting;
		 * a stamp the finishing read hands over (seq 0) only moves a
		 * clock on that is already running */
		if (r->waiting_count && !(ev->type == ALLOC_EV_TIME && ev->seq == 0 && r->time_passed))
			r->late = true;
		if (ev->type == ALLOC_EV_TIME)
			r->time_passed = true;
		pass_on(r, ev);
		return;
	}
	if (r->waiting_count == r->waiting_cap) {
		size_t cap = r->waiting_cap ? r->waiting_cap * 2 : 4096;
		struct alloc_event *v = realloc(r->waiting, cap * sizeof(*v));

		if (!v) {
			r->error = -ENOMEM;
			return;
		}
		r->waiting = v;
		r->waiting_cap = cap;
	}
	r->waiting[r->waiting_count++] = *ev;
}

static void fork_emit(void *ctx, const struct alloc_event *ev)
{
	struct fork_read *r = ctx;

	if (!r->stopped && !r->error)
		route(r, ev);
}

static bool fork_failed(void *ctx)
{
	struct fork_read *r = ctx;

	if (r->error)
		return true;
	return r->aggregator ? agg_thread_failed(r->aggregator) : r->agg->error != 0;
}

/*
 * The current fork is reached (the reader would stop here; waiting_time_ns
 * as event_sink.h's limit_reached gives it): fn sees the aggregation.
 * Then, unless that was the last fork or an event came late, the next
 * fork's events among those waiting go on to the aggregation.  Returns
 * false when the read is to end.
 */
static bool fork_reached(struct fork_read *r, uint64_t waiting_time_ns)
{
	struct fork_point fp;
	size_t kept;
	int rc;

	if (r->aggregator) {
		agg_thread_stop(r->aggregator); /* the aggregation is ours again */
		r->aggregator = NULL;
	}
	aggregate_flush(r->agg);
	if (r->error || r->agg->error) {
		if (!r->error)
			r->error = r->agg->error;
		return false;
	}
	fp.parent = r->agg;
	fp.seq = r->limit;
	fp.time_ns = waiting_time_ns > r->agg->now_ns ? waiting_time_ns : r->agg->now_ns;
	rc = r->fn(r->ctx, r->next, &fp);
	r->next++;
	if (rc < 0)
		r->error = rc;
	if (rc < 0 || r->next == r->n || r->late)
		return false;
	r->limit = r->seqs[r->next];
	r->agg->seq_limit = r->limit;
	r->aggregator = agg_thread_start_after(r->agg, AGG_READ_INLINE_EVENTS);
	if (!r->aggregator) {
		r->error = -ENOMEM;
		return false;
	}
	/* those waiting, routed again in their order: the list only shrinks */
	kept = r->waiting_count;
	r->waiting_count = 0;
	for (size_t i = 0; i < kept; i++)
		route(r, &r->waiting[i]);
	return true;
}

static uint64_t fork_limit_reached(void *ctx, uint64_t waiting_time_ns)
{
	struct fork_read *r = ctx;

	if (r->stopped || !fork_reached(r, waiting_time_ns)) {
		r->stopped = true;
		return 0;
	}
	return r->limit;
}

int fork_points_read(const char *path, struct aggregate *agg, const uint64_t *seqs, size_t n,
		     fork_point_fn fn, void *ctx, size_t *served, char *errbuf,
		     size_t errbuf_bytes)
{
	struct fork_read r = {.agg = agg, .seqs = seqs, .n = n, .fn = fn, .ctx = ctx};
	struct event_sink sink = {fork_emit, fork_failed, NULL, &r, 0, fork_limit_reached, NULL};
	struct trace_info info;
	struct stack_nodes nodes;
	struct module_maps maps;
	int rc;

	*served = 0;
	if (n == 0)
		return 0;
	r.limit = seqs[0];
	agg->seq_limit = r.limit;
	sink.seq_limit = r.limit;
	r.aggregator = agg_thread_start_after(agg, AGG_READ_INLINE_EVENTS);
	if (!r.aggregator)
		return -ENOMEM;
	trace_info_init(&info);
	stack_nodes_init(&nodes);
	module_maps_init(&maps);
	rc = event_stream_read(path, &info, &nodes, &maps, &sink, errbuf, errbuf_bytes);
	if (r.aggregator) {
		agg_thread_stop(r.aggregator);
		r.aggregator = NULL;
	}
	/* the end of the trace came before the forks left: each sees the
	 * whole of it, as a read of its own that found no place to stop */
	while (rc == 0 && !r.stopped && fork_reached(&r, 0))
		;
	if (rc == 0)
		rc = r.error;
	*served = r.next;
	trace_info_free(&info);
	stack_nodes_free(&nodes);
	module_maps_free(&maps);
	free(r.waiting);
	return rc;
}
