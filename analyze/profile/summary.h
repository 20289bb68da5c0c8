/*
 * analyze/profile/summary.h - the totals of one process as the writers read
 * them (struct heap_summary), without the aggregation's internals.
 */
#ifndef MPROF_ANALYZE_PROFILE_SUMMARY_H
#define MPROF_ANALYZE_PROFILE_SUMMARY_H

#include <stdbool.h>
#include <stdint.h>

#include "analyze/aggregate/aggregate.h"

/* A process's totals (weighted; exact in exact mode), copied out of the
 * aggregation when it is finished.  The definitions are aggregate.c's. */
struct heap_summary {
	uint64_t allocations, allocated_bytes;
	uint64_t frees;              /* free calls (incl. realloc(p, 0)) */
	uint64_t blocks_freed;       /* blocks released, incl. realloc's free part */
	uint64_t reallocs, failed_reallocs; /* records (calls recorded) */
	uint64_t frees_weighted;     /* frees of recorded blocks, by weight */
	uint64_t reallocs_weighted;  /* reallocs, by the new block's weight */
	uint64_t cut_calls;          /* calls the process's end cut short (the
	                              * aggregation's and the reader's unknown) */
	uint64_t temporary;
	uint64_t live_bytes, live_blocks; /* at the end: leaked (live at exit) */
	uint64_t max_live_blocks;
	uint64_t calls[AGG_CALL_COUNT]; /* per entry point (records, unweighted) */
	struct sample_figures samples; /* what the estimates rest on (sampled) */
	uint64_t peak_bytes, peak_blocks; /* t-gmax */
	uint64_t peak_seq, peak_time_ns;
	bool peak_time_known;
	uint64_t unmatched_frees, address_reused, null_allocs;
	uint64_t unrecorded_block_frees; /* frees of blocks allocated while recording
	                              * was stopped or sampled (expected) */
	bool time_known;
	uint64_t first_time_ns, last_time_ns;
	uint64_t inherited_blocks, inherited_bytes;
	bool inherited_seeded;
	/* pool blocks (mprof.h annotations): their part of the figures above,
	 * bytes that lie inside malloc'd blocks counted there too */
	uint64_t pool_allocations, pool_allocated_bytes;
	uint64_t pool_live_bytes, pool_live_blocks, pool_peak_bytes;
	uint64_t events;             /* allocator events processed */
	uint64_t last_seq;           /* the newest event's sequence number (0: none) */
	bool saturated;              /* a figure stopped at UINT64_MAX (or a live
	                              * figure at 0) instead of wrapping: the
	                              * writers say so (util/saturate.h) */
};

/* The summary of a finished aggregation. */
void heap_summary_fill(struct heap_summary *h, const struct aggregate *a);

#endif
