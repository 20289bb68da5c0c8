/*
 * analyze/aggregate/agg_thread.h - the aggregation of a report on a thread of its own:
 * the merged events go through a fixed ring (single producer, single
 * consumer) to a thread that runs aggregate_event, so that decoding and
 * merging (the caller's thread) and aggregation (about half of a report's
 * reading time, measured on sqlite3's and a C++ container benchmark's
 * traces) overlap.
 *
 * The events reach the aggregation in the order they were emitted, exactly
 * as direct calls would have given them.  While the thread runs, the
 * aggregation belongs to it: the caller reads nothing of it but
 * agg_thread_failed() until agg_thread_stop().  When no thread can be made,
 * agg_thread_emit calls aggregate_event itself.
 */
#ifndef MPROF_ANALYZE_AGG_THREAD_H
#define MPROF_ANALYZE_AGG_THREAD_H

#include <stdbool.h>
#include <stddef.h>

#include "analyze/aggregate/aggregate.h"
#include "analyze/read/alloc_event.h"

/* Events in flight at most (40 bytes each), a whole number of batches.
 * 24576 (960 KiB): with 32768, python3's report took 0.3 MiB more at its
 * peak and no less time (9 interleaved rounds on the five bench traces);
 * 20480 made the C++ program's 5-10% slower, 16384 mallocbench's and
 * cc1's. */
#define AGG_THREAD_RING_EVENTS 24576u
#define AGG_THREAD_BATCH 4096u        /* events written before they are published */
/* Room a producer waiting for the consumer waits for: half the ring, a
 * whole number of batches. */
#define AGG_THREAD_ROOM_WAKE (AGG_THREAD_RING_EVENTS / 2)

struct agg_thread;

/* Starts the thread for agg (initialized).  Returns NULL on out of memory. */
struct agg_thread *agg_thread_start(struct aggregate *agg);

/* As agg_thread_start, but the first inline_events events (0: all) are
 * aggregated on the caller's thread, in agg_thread_emit, and the thread
 * starts only after them: a small trace's report makes no thread, whose
 * start and hand-overs cost more than it saves, most on a busy host. */
struct agg_thread *agg_thread_start_after(struct aggregate *agg, uint64_t inline_events);

/* The reorder emit callback (ctx: the struct agg_thread): queues a copy of
 * ev, waiting while the ring is full. */
void agg_thread_emit(void *ctx, const struct alloc_event *ev);

/* The reorder emit_run callback: agg_thread_emit of ev[0..n) in order,
 * stored into the ring and published a batch at a time. */
void agg_thread_emit_run(void *ctx, const struct alloc_event *ev, size_t n);

/* True once the aggregation has met an error (agg->error is set); the
 * caller may stop reading early. */
bool agg_thread_failed(const struct agg_thread *t);

/* Hands over what is queued, waits until all of it is aggregated, ends the
 * thread and frees t: the aggregation is the caller's again. */
void agg_thread_stop(struct agg_thread *t);

#endif
