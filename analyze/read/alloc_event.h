/*
 * analyze/read/alloc_event.h - one allocator event as the report side sees it
 * after decoding: the unit the reorder buffer sorts and the aggregation
 * consumes.
 *
 * A REALLOC record becomes two events (its free part at seq, its alloc part at
 * seq2) because other threads' events may fall between the two numbers.  TIME
 * records travel as events too, so that "the time at sequence number S" is
 * known exactly when the merged order reaches S; markers and recording
 * stops and starts travel the same way, so that a window can start or end
 * at one exactly.  The struct is kept small
 * (40 bytes): the reorder window holds many of them.
 */
#ifndef MPROF_ANALYZE_ALLOC_EVENT_H
#define MPROF_ANALYZE_ALLOC_EVENT_H

#include <stdint.h>

enum alloc_event_type {
	ALLOC_EV_ALLOC = 0,         /* ALLOC record */
	ALLOC_EV_FREE = 1,          /* FREE record */
	ALLOC_EV_REALLOC_FREE = 2,  /* free part of a REALLOC (old address) */
	ALLOC_EV_REALLOC_ALLOC = 3, /* alloc part of a REALLOC (new address) */
	ALLOC_EV_SEQ_SKIP = 4,      /* a sequence number used by no event */
	ALLOC_EV_TIME = 5,          /* CLOCK_MONOTONIC at seq (after event seq) */
	/* Stamps that stand after event seq too, as TIME does (minor 2): */
	ALLOC_EV_MARKER = 6,        /* a named marker: value = its time_ns, addr =
	                             * its index in trace_info.markers (UINT64_MAX,
	                             * value 0: a record that did not decode) */
	ALLOC_EV_CONTROL = 7,       /* recording stopped or started: value =
	                             * time_ns, addr = index in trace_info.controls
	                             * (as MARKER's when it did not decode) */
	ALLOC_EV_UNRECORDED = 8,    /* from here on the process allocated
	                             * without recording (a thread without a
	                             * slot): value = time_ns */
};

/* Whether an event of type is a stamp after event seq (TIME, MARKER,
 * CONTROL, UNRECORDED), which takes no sequence number of its own. */
static inline int alloc_event_is_stamp(unsigned type)
{
	return type >= ALLOC_EV_TIME;
}

struct alloc_event {
	uint64_t seq;         /* sequence number (TIME: the event it follows) */
	uint64_t addr;        /* block address (ALLOC/FREE/REALLOC_*) */
	uint64_t value;       /* size_bytes (ALLOC, REALLOC_ALLOC) or time_ns (stamps) */
	uint32_t weight;      /* sampling weight, 1 in exact mode (clamped to 32 bits) */
	uint32_t stack_id;    /* leaf stack node id, 0 = none */
	uint32_t tid;         /* thread that made the call */
	uint8_t type;         /* enum alloc_event_type */
	uint8_t fn;           /* enum trace_alloc_fn or enum trace_free_fn */
	uint8_t flags;        /* ALLOC_EV_* marks below, or 0 */
};

/*
 * A hint from the decoder (event_stream.c) to the aggregation: on an alloc,
 * the same slot frees this block again within a few events (its free was
 * decoded while the allocation still waited to be merged); on a free, it
 * releases such a block.  The aggregation keeps these short-lived blocks in
 * a small table of their own (aggregate.h, "young blocks") instead of the
 * large one.  Only where blocks are kept depends on it, never a statistic:
 * a wrong or missing hint costs time, not correctness.
 */
#define ALLOC_EV_PAIRED 0x01

/*
 * Marks from the reader for a report's time range (event_stream.h,
 * trace_info.window_range): the event's thread's newest TIME stamp at or
 * before it is before the range's start (EARLY) or at or after its end
 * (LATE).  A TIME event has the marks of the event of its thread it
 * follows (EARLY when none: a stamp at a lap's start).
 */
#define ALLOC_EV_EARLY 0x02
#define ALLOC_EV_LATE 0x04

/*
 * Marks an event a report's window hands on in the place of one it left
 * out (window.c): the aggregation takes it as its thread's event, as it
 * must for the order of each thread's events, but counts it in no figure,
 * not even the events.
 */
#define ALLOC_EV_PLACEHOLDER 0x08

/* On a SEQ_SKIP: a call the process's end cut short (the launcher's
 * CUT_CALLS record), not a failed realloc. */
#define ALLOC_EV_CUT 0x10

/*
 * Marks a CONTROL event after which allocations may go unrecorded: a stop,
 * or a start at a sampling rate.  In a run that started exact every free is
 * recorded, running or not, so the frees of such blocks that follow are
 * expected, not unmatched (aggregate.h, unrecorded_block_frees).
 */
#define ALLOC_EV_UNRECORDING 0x20

/* On a SEQ_SKIP: an ALLOC or REALLOC record the reader refused
 * (trace_info.alloc_errors), counted in no figure, not even the events. */
#define ALLOC_EV_REFUSED 0x40

_Static_assert(sizeof(struct alloc_event) == 40, "the reorder window and the ring hold many");

#endif
