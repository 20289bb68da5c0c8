/*
 * analyze/aggregate/stats_small.c - packing statistics into the compact
 * form (stats_small.h).
 */
#include "analyze/aggregate/stats_small.h"

bool stats_small_pack(const struct alloc_stats *st, struct stats_small *out)
{
	if (!stats_small_fits(st))
		return false;
	*out = (struct stats_small){
		.allocations = (uint32_t)st->allocations,
		.allocated_bytes = (uint32_t)st->allocated_bytes,
		.live_bytes = (uint32_t)st->live_bytes,
		.live_blocks = (uint32_t)st->live_blocks,
		.max_live_bytes = (uint32_t)st->max_live_bytes,
		.max_live_blocks = (uint32_t)st->max_live_blocks,
		.peak_bytes = (uint32_t)st->peak_bytes,
		.peak_blocks = (uint32_t)st->peak_blocks,
		.temporary = (uint32_t)st->temporary,
		.freed = (uint32_t)st->freed,
		.lifetime_events_sum = (uint32_t)st->lifetime_events_sum,
		.lifetime_events_min_plus1 = (uint32_t)(st->lifetime_events_min + 1),
		.lifetime_events_max = (uint32_t)st->lifetime_events_max,
	};
	stats_small_set_ns(out, STATS_NS_SUM, st->lifetime_ns_sum);
	stats_small_set_ns(out, STATS_NS_MIN_PLUS1, st->lifetime_ns_min + 1);
	stats_small_set_ns(out, STATS_NS_MAX, st->lifetime_ns_max);
	return true;
}
