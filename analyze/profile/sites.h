/*
 * analyze/profile/sites.h - allocation sites: call stacks symbolized, with the
 * allocator wrappers in front removed, and merged when they symbolize the
 * same.  A site's statistics are the sums of its stacks' (aggregate.h).
 */
#ifndef MPROF_ANALYZE_SITES_H
#define MPROF_ANALYZE_SITES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/aggregate/aggregate.h"
#include "analyze/profile/site_stats.h"
#include "analyze/read/stack_nodes.h"
#include "analyze/symbolize/symbolize.h"

#define SITES_MAX_DEPTH 1024 /* instruction pointers walked per stack */
/* Frames of a site, inlined ones included, at most: the innermost past it
 * are left out.  mprof's stacks hold 1024 addresses at most and real code
 * inlines a few frames per address; a fuzzed trace whose embedded symbols
 * gave 1024 inlined frames for each of 1024 addresses took 2.2 GB and
 * wrote gigabytes of JSON. */
#define SITES_MAX_FRAMES 4096
/* Stacks longer than SITES_MAX_DEPTH (which mprof does not write) given
 * their leaf side, at most; the others count as unknown, and so does any
 * stack through a node their walks met.  Each takes a walk of its whole
 * chain: a fuzzed trace of 725,000 of them took 29 s. */
#define SITES_MAX_CAPPED_STACKS 1024

/* One shown frame.  Strings belong to the symbolizer (valid until
 * symbolizer_free); module is the full path ("?" when no module holds it). */
struct site_frame {
	const char *function;   /* NULL when unknown */
	const char *file;       /* NULL without debug info */
	const char *module;
	uint32_t line;          /* 0 when unknown */
	uint64_t module_offset; /* ip - load bias */
	bool inlined;           /* inlined into the next (outer) frame */
};

/* 88 bytes, its statistics in it (stats_small.h, site_stats.h): 262,145
 * sites took 40 MiB as 32-byte sites pointing at 128-byte statistics. */
struct site {
	/* summed over the site's stacks; read with site_stats */
	union {
		struct stats_small small;       /* while !stats_full */
		struct alloc_stats *full;       /* in site_table.stats_pool */
	} st;
	uint32_t id;            /* 1-based rank by allocated bytes */
	uint32_t frame_node;    /* its innermost frame's node in site_table.frame_links */
	uint32_t stack_count;   /* call stacks merged into this site */
	uint16_t frame_count;   /* frames after wrapper removal (SITES_MAX_FRAMES at most) */
	bool truncated : 1;     /* a merged stack hit --max-frames */
	bool unknown_stack : 1; /* no stack recorded, or its nodes are missing */
	bool inherited : 1;     /* blocks a fork child inherited (no stack) */
	bool stats_full : 1;    /* st.full, not st.small */
};

/* Site s's statistics: its full record, or buf (which the caller owns)
 * filled from its small one.  Valid while s and buf are. */
static inline const struct alloc_stats *site_stats(const struct site *s, struct alloc_stats *buf)
{
	if (s->stats_full)
		return s->st.full;
	stats_small_unpack(&s->st.small, buf);
	return buf;
}

struct site_options {
	const char *const *alloc_fns; /* extra wrapper names (--alloc-fn); "x*" = prefix */
	size_t alloc_fn_count;
	bool keep_wrappers;           /* --keep-wrappers: the built-in list is off */
};

/* A code address the site table looked up, by its place (symbolize.h):
 * a library loaded again is the same places, not new addresses of a new
 * epoch (10,000 loads of one library made 290,019 entries, not 42). */
struct site_ip {
	uint64_t offset;                /* sym_place.offset */
	uint64_t memo_plus1;            /* 1 + the place in memo_ids of the ids
	                                 * of its frames; 0: none yet */
	const struct sym_location *loc; /* the symbolizer's answer; NULL: not
	                                 * kept yet */
	uint32_t file;                  /* sym_place.file */
};

struct site_table {
	struct site *sites;      /* sorted by allocated bytes, id = index + 1; owned */
	size_t sites_reserved;   /* its mapping's reservation (huge_array.h) in
	                          * bytes; 0: on the heap (or in the spare) */
	/* the full statistics of the sites whose figures outgrew their small
	 * ones (struct site's st.full); owned */
	struct site_stats_pool stats_pool;
	/* what each site's estimates rest on, by its index in sites: NULL when
	 * every record weighed 1 (exact), a site's samples then being its
	 * allocations and live blocks (site_samples); owned */
	struct sample_figures *samples;
	size_t count, cap;
	struct site_frame *frames; /* distinct frames; owned */
	size_t frame_count, frame_cap;
	/* the sites' frame sequences as a tree: node k's parent node at
	 * [2 * k], its frame id at [2 * k + 1]; node 0 has no frame; owned */
	uint32_t *frame_links;
	size_t link_count;
	size_t links_reserved;   /* frame_links' mapping's reservation
	                          * (huge_array.h) in bytes; 0: on the heap */
	/* memory reused from the block table (site_table_build), owned: the
	 * arrays above that lie in it are not freed on their own */
	struct huge_spare spare;
	size_t spare_used;       /* its bytes handed out, from the start */
	bool sites_in_spare;

	/* hash tables (indices + 1), owned */
	uint32_t *frame_hash;
	size_t frame_hash_mask;
	struct site_ip *ips;     /* the places looked up, in the order met */
	size_t ip_count, ip_cap;
	uint32_t *ip_hash;       /* (file, offset) -> index in ips + 1 */
	size_t ip_hash_mask;
	/* per address looked up, the frame id of each of its frames once a site
	 * used it (UINT32_MAX: not yet), so that frame_intern, which hashes the
	 * frame's strings, runs once per address and frame, not once per stack
	 * (cc1's report: 208 k calls, 150 M instructions) */
	uint32_t *memo_ids;
	size_t memo_count, memo_cap;

	bool saturated;            /* a site's sum stopped at UINT64_MAX */

	/* what the sites rest on */
	uint64_t stacks;           /* distinct call stacks with events */
	uint64_t truncated_stacks; /* of those, cut at --max-frames (or where
	                            * the unwinder stopped: cut to one frame) */
	/* the most frames a truncated stack kept, and how many truncated stacks
	 * kept that many: when it is the run's --max-frames, those were cut at
	 * the limit (run_facts.stacks_cut_at_max_frames) */
	size_t truncated_frames_max;
	uint64_t truncated_at_frames_max;
	uint64_t unknown_stacks;   /* of those, without a usable stack */
	uint64_t lost_stacks;      /* of those, with an id other than 0 whose
	                            * nodes are not all in the trace (their
	                            * STACK records were lost) or form a cycle */
	uint64_t unmapped_stacks;  /* known stacks of a module epoch without a
	                            * map (its MODULES records were lost) */
	uint64_t frames_total;     /* distinct places (module file, offset)
	                            * symbolized */
	uint64_t frames_no_debug_info;
	uint64_t frames_no_symbol;
};

/* What site s's estimates (statistics st) rest on, into *out: its samples
 * and variance estimates (sample_figures.h). */
static inline void site_samples(const struct site_table *t, const struct site *s,
				const struct alloc_stats *st, struct sample_figures *out)
{
	if (t->samples) {
		*out = t->samples[s - t->sites];
		return;
	}
	*out = (struct sample_figures){.allocs = st->allocations, .live = st->live_blocks};
}

/* Symbolizes and merges the stacks of agg (after aggregate_finish) into t.
 * agg's per-stack statistics are packed (aggregate_stats_pack: agg->stats
 * is freed) while the stacks are walked, then summed into the sites' own:
 * at 136 bytes a stack they were the most of the build's memory.  nodes
 * are freed (stack_nodes_free) once the stacks are walked, in every case:
 * nothing after needs them (2.45 M nodes, 28 MiB, for 524,288 stacks).
 * sym must outlive t.  spare (may be NULL): memory faulted in that the
 * largest arrays are made in when it has room (aggregate_release_blocks);
 * t takes it over in every case, and *spare is emptied.  Returns 0 or
 * -ENOMEM. */
int site_table_build(struct site_table *t, struct aggregate *agg, struct stack_nodes *nodes,
		     struct symbolizer *sym, const struct site_options *opt,
		     struct huge_spare *spare);

void site_table_free(struct site_table *t);

/* Sets site s of t to the statistics st: in its small form when they fit
 * and s has no full record yet, else in its full record (made on first
 * need, kept for good).  Returns 0, or -ENOMEM with s unchanged. */
int site_stats_store(struct site_table *t, struct site *s, const struct alloc_stats *st);

/* Trims spare memory (aggregate_release_blocks) to what site_table_build
 * for agg and nodes will use of it, or frees it when that has not room, so
 * that the rest is not held while symbols are loaded. */
void site_spare_fit(struct huge_spare *spare, const struct aggregate *agg,
		    struct stack_nodes *nodes);

/* Writes the frame ids of site s, innermost first, into ids (room for
 * s->frame_count, at most SITES_MAX_FRAMES) and returns ids. */
static inline const uint32_t *site_frame_ids(const struct site_table *t, const struct site *s,
					     uint32_t *ids)
{
	uint32_t x = s->frame_node;

	for (uint32_t i = 0; i < s->frame_count; i++, x = t->frame_links[2 * x])
		ids[i] = t->frame_links[2 * x + 1];
	return ids;
}

/* The frame id of site s's innermost frame (s->frame_count is not 0). */
static inline uint32_t site_frame_innermost(const struct site_table *t, const struct site *s)
{
	return t->frame_links[2 * s->frame_node + 1];
}

/* The frame id of site s's frame at depth d from the innermost (d <
 * s->frame_count); costs d steps. */
static inline uint32_t site_frame_at(const struct site_table *t, const struct site *s, uint32_t d)
{
	uint32_t x = s->frame_node;

	while (d--)
		x = t->frame_links[2 * x];
	return t->frame_links[2 * x + 1];
}

/* True when a and b are one frame by the key stacks are merged on: same
 * function, file, line, module and inlining (and module offset when the
 * function is unknown).  Works across site tables (e.g. of two traces). */
bool site_frame_equal(const struct site_frame *a, const struct site_frame *b);

/* A hash of f consistent with site_frame_equal. */
uint64_t site_frame_hash(const struct site_frame *f);

/* True when function is an allocator wrapper by the built-in list (unless
 * opt->keep_wrappers) or by opt's names. */
bool site_is_alloc_wrapper(const char *function, const struct site_options *opt);

#endif
