/*
 * analyze/profile/summary.c - heap_summary_fill (summary.h).
 */
#include <string.h>

#include "analyze/profile/summary.h"

void heap_summary_fill(struct heap_summary *h, const struct aggregate *a)
{
	memset(h, 0, sizeof(*h));
	h->allocations = a->allocations;
	h->allocated_bytes = a->allocated_bytes;
	h->frees = a->frees;
	h->blocks_freed = a->blocks_freed;
	h->reallocs = a->reallocs;
	h->frees_weighted = a->frees_weighted;
	h->reallocs_weighted = a->reallocs_weighted;
	h->failed_reallocs = a->failed_reallocs;
	h->cut_calls = a->cut_calls;
	h->temporary = a->temporary;
	h->live_bytes = a->live_bytes;
	h->live_blocks = a->live_blocks;
	h->max_live_blocks = a->max_live_blocks;
	memcpy(h->calls, a->calls, sizeof(h->calls));
	h->samples = a->samples;
	h->peak_bytes = a->peak_bytes;
	h->peak_blocks = a->peak_blocks;
	h->peak_seq = a->peak_seq;
	h->peak_time_ns = a->peak_time_ns;
	h->peak_time_known = a->peak_time_known;
	h->unmatched_frees = a->unmatched_frees;
	h->unrecorded_block_frees = a->unrecorded_block_frees;
	h->address_reused = a->address_reused;
	h->null_allocs = a->null_allocs;
	h->time_known = a->time_known;
	h->first_time_ns = a->first_time_ns;
	h->last_time_ns = a->last_time_ns;
	h->inherited_blocks = a->inherited_blocks;
	h->inherited_bytes = a->inherited_bytes;
	h->inherited_seeded = a->inherited_seeded;
	h->pool_allocations = a->pool_allocations;
	h->pool_allocated_bytes = a->pool_allocated_bytes;
	h->pool_live_bytes = a->pool_live_bytes;
	h->pool_live_blocks = a->pool_live_blocks;
	h->pool_peak_bytes = a->pool_peak_bytes;
	h->events = a->events;
	h->last_seq = a->last_seq;
	h->saturated = a->saturated;
}
