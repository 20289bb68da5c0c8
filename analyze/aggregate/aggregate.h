/*
 * analyze/aggregate/aggregate.h - the statistics a report is made of, computed in one
 * pass over the events of a process in merged sequence order: summary
 * counters, per-call-stack statistics, the heap peak (t-gmax) and the live
 * blocks (leaks at the end).
 *
 * The definitions (allocation, peak, leak, temporary allocation, lifetime)
 * are written out in aggregate.c next to the code that implements them;
 * mprof-report(1) repeats them.  Memory grows with live blocks, distinct
 * stacks and threads, and by 8 bytes per TIME stamp that an allocation
 * followed, never with the number of allocator events.
 */
#ifndef MPROF_ANALYZE_AGGREGATE_H
#define MPROF_ANALYZE_AGGREGATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/read/alloc_event.h"
#include "analyze/aggregate/block_table.h"
#include "analyze/aggregate/sample_figures.h"
#include "analyze/aggregate/stats_small.h"
#include "analyze/aggregate/timeline.h"
#include "analyze/aggregate/young_blocks.h"
#include "analyze/util/grow.h"
#include "trace/format.h"

/* The pseudo stack id of blocks a fork child inherited from its parent
 * (no trace stack id is this large). */
#define AGG_STACK_INHERITED UINT32_MAX

/* Per-stack statistics plus the lazy peak snapshot's generation: 136
 * bytes (ids and generations fit 32 bits; 524,288 stacks took 72 MiB at
 * 144). */
struct stack_stats {
	uint32_t stack_id;         /* leaf stack node id (events' ids are 32-bit),
	                            * 0 = no stack, or AGG_STACK_INHERITED */
	uint32_t peak_gen;         /* peak generation of the last live change */
	struct alloc_stats s;
};

/* The largest block count a stack's compact statistics hold (16 bits). */
#define STACK_SMALL_BLOCKS_MAX UINT16_MAX

/* stack_small.peak_gen of a stack whose statistics outgrew the compact
 * form (the aggregation's own generation stays below it). */
#define STACK_SMALL_FULL UINT32_MAX

/* A stack's figures in its compact form: block counts in 16 bits (a stack
 * of more than 65,535 blocks is one of few: the events bound their
 * number), bytes and lifetimes in events in 32, lifetimes in ns in 48 as
 * stats_small's (stats_small.h), the minima as value + 1 so that all zero
 * bytes are empty statistics. */
struct stack_figures {
	uint32_t allocated_bytes, live_bytes, max_live_bytes, peak_bytes;
	uint32_t lifetime_events_sum, lifetime_events_min_plus1, lifetime_events_max;
	uint32_t ns_low[3];        /* by enum stats_small_ns */
	uint16_t ns_high[3];
	uint16_t allocations, live_blocks, max_live_blocks, peak_blocks, temporary, freed;
};

/* A stack's statistics while each figure fits the compact form: 68 bytes
 * instead of 136.  The stacks of a program with hundreds of thousands of
 * them mostly have a few blocks each (262,145 stacks of four: 36 MiB at
 * 136 bytes, the most of the report's memory after reading).  A stack whose
 * figure would outgrow them moves to a struct stack_stats for good
 * (peak_gen STACK_SMALL_FULL), whose index in aggregate.full then takes
 * the figures' place. */
struct stack_small {
	union {
		struct stack_figures s; /* while peak_gen < STACK_SMALL_FULL */
		uint32_t full_index;    /* once peak_gen == STACK_SMALL_FULL */
	};
	uint32_t stack_id;         /* as stack_stats' */
	uint32_t peak_gen;         /* as stack_stats', or STACK_SMALL_FULL */
};

/* Whether r's statistics are a full record (aggregate.full[r->full_index]). */
static inline bool stack_small_is_full(const struct stack_small *r)
{
	return r->peak_gen == STACK_SMALL_FULL;
}

/* The full statistics that r's compact figures hold (r not full), into *out. */
void stack_small_unpack(const struct stack_small *r, struct alloc_stats *out);

/* Entry points counted in aggregate.calls: for the allocating functions,
 * the successful allocations each made; for free, free_sized and
 * free_aligned_sized the calls; realloc(p, 0) that frees is counted apart. */
enum agg_call {
	AGG_CALL_MALLOC, AGG_CALL_CALLOC, AGG_CALL_REALLOC, AGG_CALL_REALLOCARRAY,
	AGG_CALL_POSIX_MEMALIGN, AGG_CALL_ALIGNED_ALLOC, AGG_CALL_MEMALIGN,
	AGG_CALL_VALLOC, AGG_CALL_PVALLOC, AGG_CALL_FREE, AGG_CALL_FREE_SIZED,
	AGG_CALL_FREE_ALIGNED_SIZED,
	AGG_CALL_REALLOC_TO_ZERO, /* realloc(p, 0) / reallocarray(p, 0, n) that freed */
	AGG_CALL_POOL,            /* pool annotations: blocks a pool handed out, */
	AGG_CALL_POOL_REALLOC,    /* ... resized, */
	AGG_CALL_POOL_FREE,       /* ... and took back */
	AGG_CALL_REALLOC_RELEASE, /* realloc/reallocarray whose new block was
	                           * not recorded: only its release is */
	AGG_CALL_COUNT
};

/* Name of an agg_call entry point ("malloc", ...). */
const char *agg_call_name(unsigned call);

struct thread_last {
	uint64_t tid_plus1;        /* tid + 1; 0 marks an empty bucket */
	uint64_t last_alloc_addr;  /* the thread's previous event allocated this; 0 if not */
};

/* A time at which live blocks were allocated: the TIME stamp (ns) and the
 * first sequence number of the blocks that refer to it. */
struct alloc_time {
	uint64_t time_ns;
	uint64_t first_seq;
};

/* Whether a block address is a pool block's (bit 63, mprof-trace(5)):
 * a separate address space from malloc's blocks. */
#define AGG_POOL_ADDR(addr) (((addr) & TRACE_POOL_ADDR_BIT) != 0)

/* Events wait this long in a small pipeline so that the cache line of their
 * block is prefetched before they are processed. */
#define AGG_PIPELINE 16

struct aggregate {
	struct alloc_event pipeline[AGG_PIPELINE];
	unsigned pipe_head, pipe_count;

	/* per-stack statistics: stack id -> index + 1 and a tag, by an
	 * open-addressing hash (aggregate.c); 0: an empty slot */
	uint32_t *stack_index;
	size_t stack_index_cap;       /* slots, a power of 2 */
	size_t stack_index_reserved;  /* its mapping's reservation; 0: on the heap */
	/* per stack, in the order met (its index: block.stat_index); on huge
	 * pages once large (grow_big): 262,145 stacks took 9,000 page faults
	 * on small pages */
	struct grow_big small_mem;
	struct stack_small *small;    /* small_mem.p */
	size_t stat_count, stat_cap;  /* stat_cap: small_mem.count */
	/* the stack the last stats_index lookup found, and its index + 1 (0:
	 * none yet): consecutive allocations often share a stack */
	uint32_t last_stack_id;
	size_t last_stat_plus1;
	/* the statistics of the stacks that outgrew their small ones */
	struct grow_big full_mem;
	struct stack_stats *full;     /* full_mem.p */
	size_t full_count;

	struct block_table blocks;
	/* live blocks whose allocation came with ALLOC_EV_PAIRED (freed again
	 * soon), while there is room; never an address that blocks holds */
	struct young_blocks young;
	/* sampling weights other than 1 of live blocks, by address (in
	 * size_bytes); empty in exact mode */
	struct block_table weights;
	/* the times live blocks were allocated at, in the order first used;
	 * a block keeps its index and its sequence number's offset from the
	 * entry's first (aggregate.c, alloc_time_index) */
	struct alloc_time *alloc_times;
	size_t alloc_time_count, alloc_time_cap;

	struct thread_last *threads; /* open addressing by tid */
	size_t thread_mask, thread_count;
	size_t thread_last_index;    /* bucket of the previous event's thread */

	/* totals (weighted) */
	uint64_t allocations, allocated_bytes;
	uint64_t frees;              /* free calls (FREE records, incl. realloc(p, 0)) */
	uint64_t blocks_freed;       /* blocks released, incl. realloc's free part */
	uint64_t reallocs;           /* REALLOC records */
	uint64_t frees_weighted;     /* FREE records of a recorded block, by its
	                              * weight, but realloc's releases: in a
	                              * sampled trace the estimate of the free
	                              * calls that freed a block */
	uint64_t reallocs_weighted;  /* the new blocks of realloc calls by their
	                              * weight (REALLOC records, and ALLOC
	                              * records of realloc: a sampled trace's
	                              * realloc of an unrecorded block): in a
	                              * sampled trace the estimate of the
	                              * successful reallocs */
	uint64_t failed_reallocs;    /* SEQ_SKIP, but those of a marker or a
	                              * recording stop or start, and cut calls */
	uint64_t last_skip_seq;      /* the newest SEQ_SKIP's seq */
	uint64_t cut_calls;          /* SEQ_SKIPs of calls the process's end cut
	                              * short (ALLOC_EV_CUT) */
	uint64_t temporary;
	uint64_t live_bytes, live_blocks;
	uint64_t max_live_blocks;    /* the maximum of live blocks (any time) */
	uint64_t calls[AGG_CALL_COUNT]; /* per entry point (records, unweighted) */
	struct sample_figures samples; /* what the totals' estimates rest on */
	/* per stack (by stats index), what its estimates rest on: NULL until
	 * the first event of a weight other than 1, which an exact trace never
	 * has (until then a stack's samples were its allocations and its live
	 * blocks, its variances 0: filled in then); stack_samples_cap entries,
	 * those past the stacks zero */
	struct sample_figures *stack_samples;
	size_t stack_samples_cap;

	/* peak (t-gmax): the first time live requested bytes reach their maximum */
	uint64_t peak_bytes, peak_blocks;
	uint64_t peak_seq, peak_time_ns;
	bool peak_time_known;
	uint32_t peak_gen;           /* wraps: live_add starts it again from 0 */

	/* pool blocks (AGG_POOL_ADDR), inside the totals above: their part */
	uint64_t pool_allocations, pool_allocated_bytes;
	uint64_t pool_live_bytes, pool_live_blocks;
	uint64_t pool_peak_bytes;    /* live pool bytes at t-gmax */

	/* anomalies */
	uint64_t unmatched_frees;    /* free of an address that is not live,
	                              * while every allocation was recorded */
	uint64_t unrecorded_block_frees; /* free of an address that is not live once
	                              * recording was stopped or sampled (a
	                              * CONTROL marked ALLOC_EV_UNRECORDING) or
	                              * a thread allocated without a slot (an
	                              * ALLOC_EV_UNRECORDED stamp): of a block
	                              * allocated unrecorded, expected */
	bool unrecording_seen;       /* such a stamp went by */
	uint64_t address_reused;     /* alloc at an address that is still live */
	uint64_t null_allocs;        /* alloc records with address 0 (ignored) */

	/* time: the newest TIME stamp at or before the current event */
	uint64_t now_ns;
	bool time_known;
	uint64_t first_time_ns, last_time_ns;
	struct timeline timeline;    /* the heap over time (timeline.h) */

	/* fork child: blocks live in the parent at the fork, seeded at start */
	uint64_t inherited_blocks, inherited_bytes;
	bool inherited_seeded;

	uint64_t young_allocations;  /* allocations kept among the young blocks
	                              * (alloc_event.h, ALLOC_EV_PAIRED) */
	uint64_t seq_limit;          /* nonzero: events after this seq are ignored */
	uint64_t events;             /* allocator events processed (not TIME) */
	bool saturated;              /* a figure stopped at UINT64_MAX or 0
	                              * instead of wrapping (util/saturate.h):
	                              * a crafted or corrupt trace */
	uint64_t last_seq;
	int error;                   /* first -ENOMEM met, 0 if none */
};

/* Returns 0 or -ENOMEM. */
int aggregate_init(struct aggregate *a);
void aggregate_free(struct aggregate *a);

/* Processes one event; events must come in merged sequence order (the
 * reorder buffer's emit callback, ctx = the aggregate).  Out of memory is
 * recorded in a->error, and the events after it are not processed (the
 * report fails). */
void aggregate_event(void *ctx, const struct alloc_event *ev);

/* Processes n events in order, as n aggregate_event calls would, but
 * without copying them: the cache line of each one's block is prefetched
 * AGG_PIPELINE events ahead within ev[] (the caller keeps ev[] unchanged
 * until the call returns).  Events held back by aggregate_event go first. */
void aggregate_events(struct aggregate *a, const struct alloc_event *ev, size_t n);

/* Processes the events aggregate_event holds back (its pipeline), so that
 * the live blocks, totals and clock are those after the last event given. */
void aggregate_flush(struct aggregate *a);

/*
 * Fork child: makes every block live in parent (read up to the fork, at
 * sequence number fork_seq) live in a, attributed to the pseudo stack
 * AGG_STACK_INHERITED, before a's first event, so frees of inherited blocks
 * match; their lifetimes count from fork_time_ns, the parent's clock at the
 * fork.  They count as live (and toward the peak), not as allocations.
 * parent's pipeline must be flushed.  Returns 0 or -ENOMEM.
 */
int aggregate_seed_inherited(struct aggregate *a, const struct aggregate *parent,
			     uint64_t fork_seq, uint64_t fork_time_ns);

/* End of the trace: completes the lazy peak snapshot of every stack. */
void aggregate_finish(struct aggregate *a);

/*
 * After aggregate_finish: frees the tables of live blocks and the indexes
 * from stack ids to statistics (the reports need only the statistics; no
 * event may be aggregated after it), so that they and what comes after (allocation
 * sites, symbols) are never in memory together: on python3's trace the
 * table is 12 MiB.  With spare not NULL, the block table's memory is handed
 * over there instead of freed, for the sites to be built in
 * (site_table_build).  Not for an aggregation a fork child is still to be
 * seeded from (aggregate_seed_inherited reads its blocks).  a stays valid
 * for aggregate_free.
 */
void aggregate_release_blocks(struct aggregate *a, struct huge_spare *spare);

/* The statistics of the k-th stack met (k < a->stat_count), before
 * aggregate_stats_pack, into *out. */
void aggregate_stack_stats(const struct aggregate *a, size_t k, struct stack_stats *out);

/* Appends statistics for a stack that has none yet (tests build
 * aggregations with it).  Returns its index, or -1 on ENOMEM. */
long aggregate_stack_stats_put(struct aggregate *a, const struct stack_stats *st);

/* Empty statistics: zero, with the minima at UINT64_MAX (merging a into
 * them gives a). */
void alloc_stats_init(struct alloc_stats *s);

/* Adds the statistics in src to dst (site merging): sums, min of minima, max
 * of maxima (so a merged max_live is an upper bound).  Returns true when a
 * sum stopped at UINT64_MAX (util/saturate.h), false when all fit. */
bool alloc_stats_merge(struct alloc_stats *dst, const struct alloc_stats *src);

/*
 * The per-stack statistics packed for the sites' build, in the order of
 * aggregate.stats: the stack ids in an array, and the statistics as a
 * byte string, each entry a mask of the fields that are not 0 (2 bytes)
 * and those fields as LEB128 varints (the minima as value + 1, wrapping).
 * 262,145 stacks of four blocks each, all freed: 29 bytes a stack instead
 * of 136, so that the build's own tables fit beside them.
 */
struct stats_packed {
	uint32_t *stack_ids; /* count of them; owned (the build reuses it) */
	uint8_t *bytes;      /* owned */
	size_t size, cap;    /* bytes used, allocated */
	size_t count;        /* entries */
	size_t bytes_reserved; /* bytes' mapping's reservation (huge_array.h);
	                        * 0: on the heap */
};

/* After aggregate_finish: packs a's per-stack statistics into *out and
 * frees them (a->small and a->full NULL; a->stat_count still says how
 * many stacks).
 * Returns 0, or -ENOMEM with a unchanged and *out empty. */
int aggregate_stats_pack(struct aggregate *a, struct stats_packed *out);

/* Reads the statistics at p (within a stats_packed's bytes) into *s;
 * returns where the next entry starts. */
const uint8_t *stats_packed_read(const uint8_t *p, struct alloc_stats *s);

void stats_packed_free(struct stats_packed *p);

#endif
