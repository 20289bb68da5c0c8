/*
 * analyze/reorder.h - merging the per-thread event streams of one process
 * into exact sequence order.
 *
 * Sequence numbers are dense per process (every number is used by exactly one
 * event: an ALLOC, a FREE, one part of a REALLOC or a SEQ_SKIP), so the next
 * event to emit is always known: "expected".  Events arrive in any order
 * across slots; the buffer is a binary min-heap keyed by (seq, TIME after the
 * event) and emits while its minimum is the expected number.  A TIME stamp at
 * seq S is emitted once event S has been.  Gaps (a lost chunk, an event in
 * flight when the process was killed) are skipped when the heap holds more
 * than max_window events or at the end of input, and counted.
 *
 * Memory: the heap only, bounded by the reorder window, never by the number
 * of events.
 */
#ifndef MPROF_ANALYZE_REORDER_H
#define MPROF_ANALYZE_REORDER_H

#include <stddef.h>
#include <stdint.h>

#include "analyze/alloc_event.h"

#define REORDER_DEFAULT_WINDOW ((size_t)1 << 22) /* events held before skipping a gap */

typedef void (*reorder_emit_fn)(void *ctx, const struct alloc_event *ev);

struct reorder {
	struct alloc_event *heap; /* owned */
	size_t count, capacity;
	size_t max_window;        /* skip a gap when count exceeds this */
	uint64_t expected;        /* next sequence number to emit */
	uint64_t gaps;            /* sequence gaps skipped */
	uint64_t missing_seqs;    /* sequence numbers never seen in those gaps */
	uint64_t late_events;     /* events older than expected (after a skip) */
	size_t max_count;         /* largest window seen */
	reorder_emit_fn emit;
	void *ctx;
};

/* Sets up an empty buffer that emits to emit(ctx, ev), expecting first_seq
 * first (1 for a process, fork_seq + 1 for a fork child). */
void reorder_init(struct reorder *r, uint64_t first_seq, reorder_emit_fn emit, void *ctx);

/* Changes the first expected sequence number; only before the first push. */
void reorder_set_first_seq(struct reorder *r, uint64_t first_seq);

/* Adds one event and emits everything that is now in order.
 * Returns 0 or -ENOMEM (the event is then dropped). */
int reorder_push(struct reorder *r, const struct alloc_event *ev);

/* End of input: emits everything left in sequence order, counting gaps. */
void reorder_finish(struct reorder *r);

void reorder_free(struct reorder *r);

#endif
