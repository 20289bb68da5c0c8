/*
 * analyze/read/reorder.h - merging the per-thread event streams of one process
 * into exact sequence order.
 *
 * Sequence numbers are dense per process (every number is used by exactly one
 * event: an ALLOC, a FREE, one part of a REALLOC or a SEQ_SKIP), so the next
 * event to emit is always known: "expected".  Each source (a thread slot)
 * yields its events in increasing order, but the sources' data arrives
 * interleaved in any way.  The merger pulls one event at a time from each
 * source (a source decodes lazily, so waiting events stay mostly in their
 * compact encoded form) and keeps a binary min-heap of the sources by their
 * next event's key (seq, TIME after the event): a k-way merge, O(log
 * sources) per event.  A TIME stamp (or a MARKER or CONTROL, alloc_event.h)
 * at seq S is emitted once event S has been.
 *
 * Gaps (a lost chunk, an event in flight when the process was killed) are
 * skipped when the caller says too much waits (reorder_skip_gap) or at the
 * end of input, and counted.  An event older than expected (after a skipped
 * gap) is emitted when it comes and counted as late.
 *
 * Memory: one head event pointer per source and the heap; never grows with
 * events.
 */
#ifndef MPROF_ANALYZE_REORDER_H
#define MPROF_ANALYZE_REORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/read/alloc_event.h"

#define REORDER_MAX_SOURCES (1u << 20)

/* Returns source's next event, or NULL when the source has nothing more for
 * now (it is woken again when it has).  The event stays the source's (not
 * copied): it must stay unchanged until the source is pulled again. */
typedef const struct alloc_event *(*reorder_pull_fn)(void *ctx, uint32_t source);

/* Receives the events in merged order. */
typedef void (*reorder_emit_fn)(void *ctx, const struct alloc_event *ev);

/* Optional, with the two below: how many of source's events wait right
 * after the one its last pull returned, next to it in memory (ev[1],
 * ev[2], ...), decoded already; takes none. */
typedef size_t (*reorder_peek_fn)(void *ctx, uint32_t source);

/* Takes n of the events peek counted, as n pulls would; they stay valid
 * until the source is pulled again. */
typedef void (*reorder_take_fn)(void *ctx, uint32_t source, size_t n);

/* Receives n events in merged order at once (one source's, consecutive). */
typedef void (*reorder_emit_run_fn)(void *ctx, const struct alloc_event *ev, size_t n);

struct reorder_source {
	const struct alloc_event *head; /* next event (the source's), valid
	                                 * when heap_pos != 0 */
	size_t heap_pos;          /* index in the heap + 1; 0: no head event */
	bool dropping;            /* its last event was a repeat: the stamps
	                           * that follow it go too */
};

/* Sequence numbers [lo, hi) skipped as a gap and not yet filled. */
struct reorder_gap {
	uint64_t lo, hi;
};

/* Gap ranges kept to tell a late event from a repeated one (16 bytes
 * each, 64 MiB at most; 800 threads allocating for 3 s left 1.1 million);
 * past this many, late events are taken as fills. */
#define REORDER_GAP_RANGES_MAX (1u << 22)

/* A late event splits a range only among this many newest ones: a split
 * moves the ranges after it (late events mostly fill recent gaps; a trace
 * made to fill old ones one by one would cost the square of its gaps). */
#define REORDER_GAP_SPLIT_WINDOW 4096

struct reorder {
	struct reorder_source *sources; /* indexed by source, owned */
	size_t source_count;
	uint32_t *heap;           /* sources with a head event, owned */
	size_t heap_count, heap_cap;
	uint64_t expected;        /* next sequence number to emit */
	uint64_t gaps;            /* sequence gaps skipped and not filled
	                           * (as many as unfilled gap ranges, while
	                           * they are all kept) */
	uint64_t missing_seqs;    /* sequence numbers never seen in those gaps
	                           * (a late event fills one) */
	uint64_t late_events;     /* events older than expected, in a gap */
	uint64_t repeated_events; /* events whose sequence number was merged
	                           * already (a chunk written twice, two traces
	                           * joined): dropped, with the stamps after them */
	struct reorder_gap *gap_ranges; /* sorted, owned; filled ones empty */
	size_t gap_range_count, gap_range_cap;
	size_t gap_ranges_filled; /* of gap_range_count, those filled (empty) */
	bool gap_ranges_full;     /* some gaps not kept (REORDER_GAP_RANGES_MAX
	                           * or no memory): late events are not judged */
	reorder_pull_fn pull;
	void *pull_ctx;
	reorder_emit_fn emit;
	void *emit_ctx;
	/* runs (reorder_set_runs), all three or none */
	reorder_peek_fn peek;
	reorder_take_fn take;
	reorder_emit_run_fn emit_run;
	int error;                /* -ENOMEM met while waking a source */
};

/* Sets up a merger expecting first_seq first (1 for a process, fork_seq + 1
 * for a fork child). */
void reorder_init(struct reorder *r, uint64_t first_seq, reorder_pull_fn pull, void *pull_ctx,
		  reorder_emit_fn emit, void *emit_ctx);

/*
 * Lets the merge hand over the events of one source that it would emit one
 * after another (in order, nothing of another source's ready between them)
 * with one emit_run instead of one pull and one emit each; the order and
 * the events are those emit would have had.  peek and take act on the
 * pull context, emit_run on the emit context.  Only before any event.
 */
void reorder_set_runs(struct reorder *r, reorder_peek_fn peek, reorder_take_fn take,
		      reorder_emit_run_fn emit_run);

/* Changes the first expected sequence number; only before any event. */
void reorder_set_first_seq(struct reorder *r, uint64_t first_seq);

/*
 * Source has new data: pulls its next event unless it already has one
 * waiting, then emits everything that is now in order.  Returns 0, -EINVAL
 * for source >= REORDER_MAX_SOURCES, -ENOMEM.
 */
int reorder_wake(struct reorder *r, uint32_t source);

/* Gives up on the sequence numbers missing before the smallest waiting
 * event (too much data waits): counts the gap and emits what follows. */
void reorder_skip_gap(struct reorder *r);

/* End of input: emits every waiting event in sequence order, counting gaps. */
void reorder_finish(struct reorder *r);

/* Number of sources holding a waiting event. */
static inline size_t reorder_waiting_sources(const struct reorder *r)
{
	return r->heap_count;
}

void reorder_free(struct reorder *r);

#endif
