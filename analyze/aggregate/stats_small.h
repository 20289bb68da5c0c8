/*
 * analyze/aggregate/stats_small.h - statistics (struct alloc_stats) in a
 * compact form, the one both a call stack's and an allocation site's
 * statistics are kept in while every figure fits it: counts and bytes in 32
 * bits, the lifetimes in ns in 48 (a server's blocks live longer than the
 * 4.3 s that 32 bits hold).  Most stacks and sites of a program with
 * hundreds of thousands of them have a few blocks.  The form holds the same
 * numbers: unpacking it gives the full record exactly.
 */
#ifndef MPROF_ANALYZE_STATS_SMALL_H
#define MPROF_ANALYZE_STATS_SMALL_H

#include <stdbool.h>
#include <stdint.h>

/* Statistics of one call stack, later summed into an allocation site.
 * Counts and bytes are weighted (exact in exact mode). */
struct alloc_stats {
	uint64_t allocations;      /* allocations (ALLOC + alloc part of REALLOC) */
	uint64_t allocated_bytes;  /* requested bytes of those */
	uint64_t live_bytes;       /* live now; at the end: leaked (live at exit) */
	uint64_t live_blocks;
	uint64_t max_live_bytes;   /* this stack's own maximum of live bytes */
	uint64_t max_live_blocks;  /* ... and of live blocks (independent maxima) */
	uint64_t peak_bytes;       /* live at t-gmax (the global peak) */
	uint64_t peak_blocks;
	uint64_t temporary;        /* allocations freed by the thread's next event */
	uint64_t freed;            /* blocks released (free, realloc's free part) */
	uint64_t lifetime_events_sum; /* over freed blocks, in sequence numbers */
	uint64_t lifetime_events_min;
	uint64_t lifetime_events_max;
	uint64_t lifetime_ns_sum;  /* over freed blocks, in ns (TIME resolution) */
	uint64_t lifetime_ns_min;
	uint64_t lifetime_ns_max;
};

/* The largest lifetime figure in ns the compact form holds (2^48 - 1 ns,
 * 78 hours). */
#define STATS_SMALL_NS_MAX ((UINT64_C(1) << 48) - 1)

/* The three lifetime figures in ns of struct stats_small, by index. */
enum stats_small_ns { STATS_NS_SUM, STATS_NS_MIN_PLUS1, STATS_NS_MAX };

/* struct alloc_stats in 72 bytes: the minima as value + 1, so that all zero
 * bytes are empty statistics (alloc_stats_init's); the ns figures split in
 * their low 32 and high 16 bits (read and written with stats_small_ns and
 * stats_small_set_ns). */
struct stats_small {
	uint32_t allocations, allocated_bytes, live_bytes, live_blocks;
	uint32_t max_live_bytes, max_live_blocks, peak_bytes, peak_blocks;
	uint32_t temporary, freed;
	uint32_t lifetime_events_sum, lifetime_events_min_plus1, lifetime_events_max;
	uint32_t ns_low[3];        /* by enum stats_small_ns */
	uint16_t ns_high[3];
};

/* The lifetime figure i (enum stats_small_ns) of s, in ns. */
static inline uint64_t stats_small_ns(const struct stats_small *s, unsigned i)
{
	return (uint64_t)s->ns_high[i] << 32 | s->ns_low[i];
}

/* Sets the lifetime figure i of s to v (v <= STATS_SMALL_NS_MAX). */
static inline void stats_small_set_ns(struct stats_small *s, unsigned i, uint64_t v)
{
	s->ns_low[i] = (uint32_t)v;
	s->ns_high[i] = (uint16_t)(v >> 32);
}

/* Whether v fits a count or byte figure of the compact form (32 bits). */
static inline bool stats_small_fits32(uint64_t v)
{
	return v <= UINT32_MAX;
}

/* Whether v fits a lifetime figure in ns of the compact form (48 bits). */
static inline bool stats_small_fits_ns(uint64_t v)
{
	return v <= STATS_SMALL_NS_MAX;
}

/* Whether each figure of st fits the compact form (each minimum + 1,
 * wrapping, so UINT64_MAX, "none", fits). */
static inline bool stats_small_fits(const struct alloc_stats *st)
{
	return stats_small_fits32(st->allocations | st->allocated_bytes | st->live_bytes |
				  st->live_blocks | st->max_live_bytes | st->max_live_blocks |
				  st->peak_bytes | st->peak_blocks | st->temporary | st->freed |
				  st->lifetime_events_sum | (st->lifetime_events_min + 1) |
				  st->lifetime_events_max) &&
	       stats_small_fits_ns(st->lifetime_ns_sum | (st->lifetime_ns_min + 1) |
				   st->lifetime_ns_max);
}

/* Writes st into *out when it fits (stats_small_fits) and returns true;
 * returns false with *out unchanged otherwise. */
bool stats_small_pack(const struct alloc_stats *st, struct stats_small *out);

/* The full statistics that s holds, into *out. */
static inline void stats_small_unpack(const struct stats_small *s, struct alloc_stats *out)
{
	*out = (struct alloc_stats){
		.allocations = s->allocations,
		.allocated_bytes = s->allocated_bytes,
		.live_bytes = s->live_bytes,
		.live_blocks = s->live_blocks,
		.max_live_bytes = s->max_live_bytes,
		.max_live_blocks = s->max_live_blocks,
		.peak_bytes = s->peak_bytes,
		.peak_blocks = s->peak_blocks,
		.temporary = s->temporary,
		.freed = s->freed,
		.lifetime_events_sum = s->lifetime_events_sum,
		/* (an empty minimum, 0, is UINT64_MAX as 0 - 1) */
		.lifetime_events_min = (uint64_t)s->lifetime_events_min_plus1 - 1,
		.lifetime_events_max = s->lifetime_events_max,
		.lifetime_ns_sum = stats_small_ns(s, STATS_NS_SUM),
		.lifetime_ns_min = stats_small_ns(s, STATS_NS_MIN_PLUS1) - 1,
		.lifetime_ns_max = stats_small_ns(s, STATS_NS_MAX),
	};
}

#endif
