/*
 * analyze/read/index_plan.h - what a read from a time T may leave out, from
 * the trace's chunk index (trace/chunk_index.h): the EVENTS chunks of the
 * laps of thread slots that end before T, and the first sequence number
 * the read then needs.
 *
 * The delta state and block history of a slot reset only at offset 0 of
 * each lap, so a lap is left out whole or read whole.  A lap is left out
 * when every TIME stamp in it is before T (so every event in it is, by its
 * thread's clock), it holds nothing but allocator events, THREAD, TIME and
 * PAD records (no stack nodes, module maps or other extended records, which
 * a report needs whatever the time), and every sequence number in it is
 * below the cut: the smallest first sequence number of the laps that are
 * kept.  Every event below the cut is before T; every event at or above it
 * is read.  The index is checked against the chunk headers (one entry per
 * EVENTS chunk, in file order, same stream) and for consistency; an index
 * that fails is not used.  Owns nothing after index_plan_free.
 */
#ifndef MPROF_ANALYZE_INDEX_PLAN_H
#define MPROF_ANALYZE_INDEX_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct index_plan {
	bool used;              /* the index says what to leave out */
	bool t0_known;          /* the index gave t0_ns, used or not */
	uint64_t t0_ns;         /* the earliest TIME stamp the index has: the
	                         * start of the recording */
	uint64_t cut_seq;       /* events below it are not needed */
	uint64_t *skip_offsets; /* file offsets of the EVENTS chunks to leave
	                         * out, ascending; owned */
	size_t skip_count;
	uint64_t events_chunks; /* EVENTS chunks in the trace */
};

/*
 * Plans a read of the trace at path from from_ns after the start of the
 * recording (from_ns > 0).  Returns 0 with plan->used false when there is
 * no index or nothing to leave out (note empty) or the index cannot be
 * used (note says why, one line); 0 with plan->used true; or -ENOMEM.
 */
int index_plan_make(const char *path, uint64_t from_ns, struct index_plan *plan, char *note,
		    size_t note_bytes);

void index_plan_free(struct index_plan *plan);

/* The start of the recording as the trace's chunk index gives it (the
 * earliest first TIME stamp of its entries) into *t0_ns: 1, or 0 when the
 * trace has no usable index (or no time), or -ENOMEM. */
int index_start_ns(const char *path, uint64_t *t0_ns);

#endif
