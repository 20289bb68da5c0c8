/*
 * analyze/aggregate/aggregate.c - one pass over the merged events of a process:
 * summary counters, per-stack statistics, live blocks, the peak (t-gmax),
 * temporary allocations and lifetimes.
 *
 * Owns the per-stack statistics, the live-block table and the per-thread
 * "last event" table.  Must never allocate per event (tables only grow)
 * and never look at symbols: stacks are plain ids here; sites.c turns them
 * into allocation sites afterwards.
 *
 * Definitions, exactly as mprof-report(1) states them:
 *  - allocation: an ALLOC record or the alloc part of a REALLOC record.  Its
 *    bytes are the requested size (calloc: n * size).  The weight (1 in exact
 *    mode, the sampling estimate otherwise) multiplies counts and bytes.  A
 *    successful realloc counts one allocation of its new size; its free part
 *    releases the old block, so live bytes change by new - old.  realloc(p, 0)
 *    that frees is a FREE record with fn TRACE_FREE_REALLOC: a free.  A failed
 *    realloc (SEQ_SKIP) counts nothing.
 *  - calls per entry point: every ALLOC and REALLOC record counts one
 *    allocation made by its function (realloc(NULL, n) is one of realloc),
 *    every FREE record one call of free, free_sized or free_aligned_sized;
 *    realloc(p, 0) that frees counts as "realloc_to_zero" (a free, not an
 *    allocation by realloc); a realloc whose new block was not recorded
 *    (sampled or stopped) as "realloc_release"; the free part of a REALLOC
 *    is not a free call;
 *    failed reallocs (SEQ_SKIP) are counted apart.
 *  - live blocks: blocks allocated and not yet freed, by address (kept in
 *    the block table, or among the young blocks when the decoder saw them
 *    freed again soon: young_blocks.h; both are looked in).  A free of
 *    an address that is not live is an "unmatched free" (counted, otherwise
 *    ignored); once recording was stopped or sampled, or a thread without
 *    a slot allocated unrecorded (the run may have allocated blocks
 *    unrecorded, and an exact run records every free) it is a "free of an
 *    unrecorded block" instead, counted apart.  An allocation at an address that is still live replaces the
 *    old block (the old one is taken as freed without statistics) and counts
 *    an "address reused while live" anomaly.
 *  - peak: the maximum over the merged order of live requested bytes; t-gmax
 *    is the sequence number at which it is first reached, and its time is the
 *    nearest TIME stamp at or before it.  A stack's "at peak" numbers are its
 *    live bytes/blocks at t-gmax.  Computed with a lazy snapshot: a global
 *    peak generation; each stack remembers the generation of its last change,
 *    and before changing, a stack from an older generation first copies live
 *    into at-peak (its live value then is its value at the newest peak).
 *  - leak: a block still live at the end of the trace (at exit).
 *  - temporary allocation: an allocation whose free is the very next
 *    allocator event (alloc, free, either part of a realloc, failed realloc)
 *    of the same thread.
 *  - lifetime: from allocation to free, in sequence numbers (deterministic)
 *    and in ns (TIME stamp resolution); per stack min/avg/max over freed
 *    blocks.
 *  - max live: a stack's own maximum of live bytes (and, separately, blocks).
 *  - pool block: a block the program's own allocator announced (mprof.h's
 *    pool annotations: ALLOC/REALLOC of fn TRACE_FN_POOL, FREE of
 *    TRACE_FREE_POOL), at an address with bit 63 set.  It counts as an
 *    allocation like any other, in totals, peak and leaks; its bytes lie
 *    inside malloc'd blocks that count too, so the pool_* totals say how
 *    much of each figure is counted twice.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/aggregate/aggregate.h"
#include "analyze/util/grow.h"
#include "analyze/util/hash_seed.h"
#include "analyze/util/huge_array.h"
#include "analyze/util/saturate.h"

#define THREADS_INITIAL 64u
#define STACK_INDEX_INITIAL 1024u

static const char *const call_names[AGG_CALL_COUNT] = {
	"malloc", "calloc", "realloc", "reallocarray", "posix_memalign", "aligned_alloc",
	"memalign", "valloc", "pvalloc", "free", "free_sized", "free_aligned_sized",
	"realloc_to_zero", "pool", "pool_realloc", "pool_free", "realloc_release",
};

const char *agg_call_name(unsigned call)
{
	return call < AGG_CALL_COUNT ? call_names[call] : "?";
}

void alloc_stats_init(struct alloc_stats *s)
{
	memset(s, 0, sizeof(*s));
	s->lifetime_events_min = UINT64_MAX;
	s->lifetime_ns_min = UINT64_MAX;
}

bool alloc_stats_merge(struct alloc_stats *dst, const struct alloc_stats *src)
{
	bool sat = false;

	dst->allocations = sat_add(dst->allocations, src->allocations, &sat);
	dst->allocated_bytes = sat_add(dst->allocated_bytes, src->allocated_bytes, &sat);
	dst->live_bytes = sat_add(dst->live_bytes, src->live_bytes, &sat);
	dst->live_blocks = sat_add(dst->live_blocks, src->live_blocks, &sat);
	dst->max_live_bytes = sat_add(dst->max_live_bytes, src->max_live_bytes, &sat);
	dst->max_live_blocks = sat_add(dst->max_live_blocks, src->max_live_blocks, &sat);
	dst->peak_bytes = sat_add(dst->peak_bytes, src->peak_bytes, &sat);
	dst->peak_blocks = sat_add(dst->peak_blocks, src->peak_blocks, &sat);
	dst->temporary = sat_add(dst->temporary, src->temporary, &sat);
	dst->freed = sat_add(dst->freed, src->freed, &sat);
	dst->lifetime_events_sum =
		sat_add(dst->lifetime_events_sum, src->lifetime_events_sum, &sat);
	dst->lifetime_ns_sum = sat_add(dst->lifetime_ns_sum, src->lifetime_ns_sum, &sat);
	if (src->lifetime_events_min < dst->lifetime_events_min)
		dst->lifetime_events_min = src->lifetime_events_min;
	if (src->lifetime_events_max > dst->lifetime_events_max)
		dst->lifetime_events_max = src->lifetime_events_max;
	if (src->lifetime_ns_min < dst->lifetime_ns_min)
		dst->lifetime_ns_min = src->lifetime_ns_min;
	if (src->lifetime_ns_max > dst->lifetime_ns_max)
		dst->lifetime_ns_max = src->lifetime_ns_max;
	return sat;
}

static void stack_slots_free(uint32_t *v, size_t reserved);

int aggregate_init(struct aggregate *a)
{
	memset(a, 0, sizeof(*a));
	a->stack_index = calloc(STACK_INDEX_INITIAL, sizeof(*a->stack_index));
	a->stack_index_cap = STACK_INDEX_INITIAL;
	a->threads = calloc(THREADS_INITIAL, sizeof(*a->threads));
	a->thread_mask = THREADS_INITIAL - 1;
	if (!a->stack_index || !a->threads || block_table_init(&a->blocks) < 0 ||
	    block_table_init(&a->weights) < 0 || timeline_init(&a->timeline) < 0) {
		aggregate_free(a);
		return -ENOMEM;
	}
	return 0;
}

void aggregate_free(struct aggregate *a)
{
	stack_slots_free(a->stack_index, a->stack_index_reserved);
	grow_big_free(&a->small_mem);
	grow_big_free(&a->full_mem);
	free(a->threads);
	block_table_free(&a->blocks);
	block_table_free(&a->weights);
	free(a->stack_samples);
	free(a->alloc_times);
	timeline_free(&a->timeline);
	memset(a, 0, sizeof(*a));
}

/* Bucket of a stack or thread id among mask + 1 (seeded: hash_seed.h). */
static inline size_t id_hash(uint64_t id, size_t mask)
{
	return (size_t)hash_mix64(id) & mask;
}

/* ---- stack id -> statistics ---- */

/*
 * Stack id -> index + 1 of its statistics through an open-addressing hash
 * of 4-byte slots: the index + 1 in the low log2(slots) bits (it is below
 * the slot count), the id's hash's high bits above them as a tag, so that a
 * probe reads a stack's statistics only on a tag match.  Grown at 3/4 load.
 * 262,145 stacks: 2 MiB, where an array by id (stack ids are leaf node
 * ids, 1 in 4.7 of them) took 6 MiB of reading's high-water.  Once large,
 * a mapping of its own, whose memory goes back to the system when freed (a
 * freed heap block stayed resident through the sites' build).
 */

/* The slots' bits that hold an index + 1 (the rest: the tag). */
static inline uint32_t stack_slot_low(const struct aggregate *a)
{
	return (uint32_t)(a->stack_index_cap - 1);
}

/* The tag of a stack id's hash h in a slot. */
static inline uint32_t stack_slot_tag(const struct aggregate *a, uint64_t h)
{
	return (uint32_t)(h >> 32) & ~stack_slot_low(a);
}

/* Slots of the index from this size on are a mapping of their own: heap
 * blocks freed by the aggregation thread stayed resident (1.7 MiB more
 * through the sites' build on 262,145 stacks). */
#define STACK_SLOTS_MAPPED ((size_t)64 << 10)

/* Zeroed slots for the index, n of them: on the heap, or a mapping of its
 * own once STACK_SLOTS_MAPPED bytes (*reserved set, else 0).  NULL on
 * ENOMEM. */
static uint32_t *stack_slots_alloc(size_t n, size_t *reserved)
{
	*reserved = 0;
	if (n * sizeof(uint32_t) >= STACK_SLOTS_MAPPED)
		return huge_array_alloc_exact(n * sizeof(uint32_t), reserved);
	return calloc(n, sizeof(uint32_t));
}

static void stack_slots_free(uint32_t *v, size_t reserved)
{
	if (reserved)
		huge_array_free(v, reserved);
	else
		free(v);
}

/* The empty slot or the slot of stack_id (hash h) in a's index. */
static inline size_t stack_slot_find(const struct aggregate *a, uint32_t stack_id, uint64_t h)
{
	size_t mask = a->stack_index_cap - 1, i = (size_t)h & mask;
	uint32_t low = stack_slot_low(a), tag = stack_slot_tag(a, h), e;

	while ((e = a->stack_index[i]) != 0) {
		if ((e & ~low) == tag && a->small[(e & low) - 1].stack_id == stack_id)
			break;
		i = (i + 1) & mask;
	}
	return i;
}

/* Doubles the index's slots.  Returns 0 or -ENOMEM (the index unchanged). */
static int stack_index_grow(struct aggregate *a)
{
	size_t n = a->stack_index_cap * 2, reserved, old_reserved = a->stack_index_reserved;
	uint32_t *v = stack_slots_alloc(n, &reserved), *old = a->stack_index;

	if (!v)
		return -ENOMEM;
	a->stack_index = v;
	a->stack_index_cap = n;
	a->stack_index_reserved = reserved;
	for (size_t k = 0; k < a->stat_count; k++) {
		uint64_t h = hash_mix64(a->small[k].stack_id);
		size_t i = stack_slot_find(a, a->small[k].stack_id, h);

		v[i] = stack_slot_tag(a, h) | (uint32_t)(k + 1);
	}
	stack_slots_free(old, old_reserved);
	return 0;
}

/* A new, empty entry of statistics for stack_id; its index, or -1 on
 * ENOMEM. */
static long stats_new(struct aggregate *a, uint32_t stack_id)
{
	struct stack_small *r;

	if (a->stat_count == a->stat_cap) {
		if (a->stat_count >= UINT32_MAX - 1 ||
		    grow_big_to(&a->small_mem, a->stat_count, sizeof(*r), 256) < 0)
			return -1;
		a->small = a->small_mem.p;
		a->stat_cap = a->small_mem.count;
	}
	r = &a->small[a->stat_count];
	memset(r, 0, sizeof(*r)); /* every figure 0, the minima empty */
	r->stack_id = stack_id;
	a->stat_count++;
	return (long)(a->stat_count - 1);
}

static __attribute__((noinline)) long stats_index_new(struct aggregate *a, uint32_t stack_id,
						      uint64_t h);

/* Index of the statistics of stack_id, created on first use; -1 on ENOMEM. */
static inline long stats_index(struct aggregate *a, uint32_t stack_id)
{
	uint64_t h;
	uint32_t e;
	long k;

	if (a->last_stat_plus1 && a->last_stack_id == stack_id)
		return (long)a->last_stat_plus1 - 1;
	h = hash_mix64(stack_id);
	e = a->stack_index[stack_slot_find(a, stack_id, h)];
	k = e ? (long)(e & stack_slot_low(a)) - 1 : stats_index_new(a, stack_id, h);
	if (k >= 0) {
		a->last_stack_id = stack_id;
		a->last_stat_plus1 = (size_t)k + 1;
	}
	return k;
}

/* stats_index of a stack met for the first time (hash h). */
static long stats_index_new(struct aggregate *a, uint32_t stack_id, uint64_t h)
{
	long k;

	/* the index grows before the entry is added: at 3/4 load, so that an
	 * index + 1 stays below the slot count (it fits the slot's low bits)
	 * and a probe for a new stack ends (more than once after statistics
	 * put without it: aggregate_stack_stats_put) */
	while ((a->stat_count + 1) * 4 > a->stack_index_cap * 3)
		if (stack_index_grow(a) < 0)
			return -1;
	k = stats_new(a, stack_id);
	if (k < 0)
		return -1;
	a->stack_index[stack_slot_find(a, stack_id, h)] =
		stack_slot_tag(a, h) | (uint32_t)(k + 1);
	return k;
}

/* ---- per-thread "previous allocator event" (temporary allocations) ---- */

static int threads_grow(struct aggregate *a)
{
	size_t n = (a->thread_mask + 1) * 2;
	struct thread_last *v = calloc(n, sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (size_t k = 0; k <= a->thread_mask; k++) {
		size_t i;

		if (!a->threads[k].tid_plus1)
			continue;
		i = id_hash(a->threads[k].tid_plus1, n - 1);
		while (v[i].tid_plus1)
			i = (i + 1) & (n - 1);
		v[i] = a->threads[k];
	}
	free(a->threads);
	a->threads = v;
	a->thread_mask = n - 1;
	return 0;
}

/* The thread's entry, created on first use; NULL on ENOMEM.  Consecutive
 * events mostly come from one thread: its bucket is tried first. */
static inline struct thread_last *thread_get(struct aggregate *a, uint32_t tid)
{
	uint64_t key = (uint64_t)tid + 1;
	size_t i = a->thread_last_index;

	if (a->threads[i].tid_plus1 == key)
		return &a->threads[i];
	if ((a->thread_count + 1) * 2 > a->thread_mask + 1 && threads_grow(a) < 0)
		return NULL;
	i = id_hash(key, a->thread_mask);
	while (a->threads[i].tid_plus1) {
		if (a->threads[i].tid_plus1 == key)
			goto found;
		i = (i + 1) & a->thread_mask;
	}
	a->threads[i].tid_plus1 = key;
	a->threads[i].last_alloc_addr = 0;
	a->thread_count++;
found:
	a->thread_last_index = i;
	return &a->threads[i];
}

static void note_error(struct aggregate *a)
{
	if (!a->error)
		a->error = -ENOMEM;
}

/* ---- live bytes with the lazy peak snapshot ---- */

/* Before a stack's live numbers change: if the global peak moved on since
 * its last change, its live value is its value at that (newest) peak. */
static inline void stats_touch(struct aggregate *a, struct stack_stats *st)
{
	if (st->peak_gen < a->peak_gen) {
		st->s.peak_bytes = st->s.live_bytes;
		st->s.peak_blocks = st->s.live_blocks;
		st->peak_gen = a->peak_gen;
	}
}

/* stats_touch of a stack's small statistics (none once full: its
 * peak_gen, STACK_SMALL_FULL, is above every generation). */
static inline void small_touch(struct aggregate *a, struct stack_small *r)
{
	if (r->peak_gen < a->peak_gen) {
		r->s.peak_bytes = r->s.live_bytes;
		r->s.peak_blocks = r->s.live_blocks;
		r->peak_gen = a->peak_gen;
	}
}

/* The peak generation has reached its largest (STACK_SMALL_FULL - 1): every
 * stack takes its live value at the newest peak now (as aggregate_finish
 * does), and the generations start again from 0, once per 2^32 - 1 peaks. */
static __attribute__((noinline)) void peak_gen_rewind(struct aggregate *a)
{
	for (size_t k = 0; k < a->stat_count; k++) {
		struct stack_small *r = &a->small[k];

		if (stack_small_is_full(r)) {
			stats_touch(a, &a->full[r->full_index]);
			a->full[r->full_index].peak_gen = 0;
		} else {
			small_touch(a, r);
			r->peak_gen = 0;
		}
	}
	a->peak_gen = 0;
}

/* The whole heap's part of a stack's live bytes growing: returns true at a
 * new peak (t-gmax), where the caller's stack takes its live value as its
 * at-peak value and the new generation. */
static bool live_add_global(struct aggregate *a, uint64_t bytes, uint64_t blocks, uint64_t seq)
{
	a->live_bytes = sat_add(a->live_bytes, bytes, &a->saturated);
	a->live_blocks = sat_add(a->live_blocks, blocks, &a->saturated);
	if (a->live_blocks > a->max_live_blocks)
		a->max_live_blocks = a->live_blocks;
	timeline_note_heap(&a->timeline, a->now_ns, seq, a->live_bytes, a->live_blocks);
	if (a->live_bytes <= a->peak_bytes)
		return false;
	/* A new peak: every other stack's live value is now its at-peak value
	 * until it next changes (lazy); the caller's is exact now. */
	a->peak_bytes = a->live_bytes;
	a->peak_blocks = a->live_blocks;
	a->peak_seq = seq;
	a->peak_time_ns = a->now_ns;
	a->peak_time_known = a->time_known;
	a->pool_peak_bytes = a->pool_live_bytes;
	if (a->peak_gen == STACK_SMALL_FULL - 1)
		peak_gen_rewind(a);
	a->peak_gen++;
	return true;
}

static void live_add(struct aggregate *a, struct stack_stats *st, uint64_t bytes, uint64_t blocks,
		     uint64_t seq)
{
	stats_touch(a, st);
	st->s.live_bytes = sat_add(st->s.live_bytes, bytes, &a->saturated);
	st->s.live_blocks = sat_add(st->s.live_blocks, blocks, &a->saturated);
	if (st->s.live_bytes > st->s.max_live_bytes)
		st->s.max_live_bytes = st->s.live_bytes;
	if (st->s.live_blocks > st->s.max_live_blocks)
		st->s.max_live_blocks = st->s.live_blocks;
	if (live_add_global(a, bytes, blocks, seq)) {
		st->s.peak_bytes = st->s.live_bytes;
		st->s.peak_blocks = st->s.live_blocks;
		st->peak_gen = a->peak_gen;
	}
}

/* ---- a stack's statistics, small or full ---- */

/* The steps of one event, forced inline into aggregate_events (and
 * aggregate_event): called, their entries and exits were 150 M of the 1.89 G
 * instructions of a report of sqlite3's trace, and those of the stack
 * statistics' steps below 127 M of 2.54 G later (callgrind). */
#define AGG_HOT static inline __attribute__((always_inline))

/* The lifetime figure i (enum stats_small_ns) of f, in ns. */
static inline uint64_t figures_ns(const struct stack_figures *f, unsigned i)
{
	return (uint64_t)f->ns_high[i] << 32 | f->ns_low[i];
}

/* Sets the lifetime figure i of f to v (v <= STATS_SMALL_NS_MAX). */
static inline void figures_set_ns(struct stack_figures *f, unsigned i, uint64_t v)
{
	f->ns_low[i] = (uint32_t)v;
	f->ns_high[i] = (uint16_t)(v >> 32);
}

/* Whether v fits a block count of the compact form (16 bits). */
static inline bool fits_blocks(uint64_t v)
{
	return v <= STACK_SMALL_BLOCKS_MAX;
}

void stack_small_unpack(const struct stack_small *r, struct alloc_stats *out)
{
	const struct stack_figures *f = &r->s;

	*out = (struct alloc_stats){
		.allocations = f->allocations,
		.allocated_bytes = f->allocated_bytes,
		.live_bytes = f->live_bytes,
		.live_blocks = f->live_blocks,
		.max_live_bytes = f->max_live_bytes,
		.max_live_blocks = f->max_live_blocks,
		.peak_bytes = f->peak_bytes,
		.peak_blocks = f->peak_blocks,
		.temporary = f->temporary,
		.freed = f->freed,
		.lifetime_events_sum = f->lifetime_events_sum,
		/* (an empty minimum, 0, is UINT64_MAX as 0 - 1) */
		.lifetime_events_min = (uint64_t)f->lifetime_events_min_plus1 - 1,
		.lifetime_events_max = f->lifetime_events_max,
		.lifetime_ns_sum = figures_ns(f, STATS_NS_SUM),
		.lifetime_ns_min = figures_ns(f, STATS_NS_MIN_PLUS1) - 1,
		.lifetime_ns_max = figures_ns(f, STATS_NS_MAX),
	};
}

/* The figures of small statistics r as full ones. */
static void small_unpack(const struct stack_small *r, struct stack_stats *st)
{
	st->stack_id = r->stack_id;
	st->peak_gen = r->peak_gen;
	stack_small_unpack(r, &st->s);
}

/* The full statistics of stack k, made from its small ones the first time
 * (whose place then holds the full record's index); NULL on ENOMEM. */
static __attribute__((noinline)) struct stack_stats *stack_make_full(struct aggregate *a, size_t k)
{
	struct stack_small *r = &a->small[k];

	if (a->full_count >= UINT32_MAX - 1 ||
	    grow_big_to(&a->full_mem, a->full_count, sizeof(struct stack_stats), 256) < 0)
		return NULL;
	a->full = a->full_mem.p;
	small_unpack(r, &a->full[a->full_count]);
	r->full_index = (uint32_t)a->full_count++;
	r->peak_gen = STACK_SMALL_FULL;
	return &a->full[r->full_index];
}

/* The full statistics of stack k, made if need be; NULL on ENOMEM. */
static inline struct stack_stats *stack_full(struct aggregate *a, size_t k)
{
	struct stack_small *r = &a->small[k];

	return stack_small_is_full(r) ? &a->full[r->full_index] : stack_make_full(a, k);
}

/* The live part of an allocation (bytes, blocks) of stack k at seq. */
AGG_HOT void stack_live_add(struct aggregate *a, size_t k, uint64_t bytes, uint64_t blocks,
			   uint64_t seq)
{
	struct stack_small *r = &a->small[k];
	struct stack_stats *st;
	uint64_t live_bytes, live_blocks;

	if (!stack_small_is_full(r) && stats_small_fits32(bytes) && fits_blocks(blocks)) {
		live_bytes = (uint64_t)r->s.live_bytes + bytes;
		live_blocks = (uint64_t)r->s.live_blocks + blocks;
		if (stats_small_fits32(live_bytes) && fits_blocks(live_blocks)) {
			small_touch(a, r);
			r->s.live_bytes = (uint32_t)live_bytes;
			r->s.live_blocks = (uint16_t)live_blocks;
			if (r->s.live_bytes > r->s.max_live_bytes)
				r->s.max_live_bytes = r->s.live_bytes;
			if (r->s.live_blocks > r->s.max_live_blocks)
				r->s.max_live_blocks = r->s.live_blocks;
			if (live_add_global(a, bytes, blocks, seq)) {
				r->s.peak_bytes = r->s.live_bytes;
				r->s.peak_blocks = r->s.live_blocks;
				r->peak_gen = a->peak_gen;
			}
			return;
		}
	}
	st = stack_full(a, k);
	if (!st) {
		note_error(a);
		return;
	}
	live_add(a, st, bytes, blocks, seq);
}

/* Bytes and blocks of stack k no longer live. */
AGG_HOT void stack_live_sub(struct aggregate *a, size_t k, uint64_t bytes, uint64_t blocks)
{
	struct stack_small *r = &a->small[k];

	if (stack_small_is_full(r)) {
		struct stack_stats *st = &a->full[r->full_index];

		stats_touch(a, st);
		st->s.live_bytes = sat_sub(st->s.live_bytes, bytes, &a->saturated);
		st->s.live_blocks = sat_sub(st->s.live_blocks, blocks, &a->saturated);
	} else { /* (less than a small figure fits it) */
		small_touch(a, r);
		r->s.live_bytes = (uint32_t)sat_sub(r->s.live_bytes, bytes, &a->saturated);
		r->s.live_blocks = (uint16_t)sat_sub(r->s.live_blocks, blocks, &a->saturated);
	}
	a->live_bytes = sat_sub(a->live_bytes, bytes, &a->saturated);
	a->live_blocks = sat_sub(a->live_blocks, blocks, &a->saturated);
}

/* An allocation of stack k: w blocks of bytes in all, live from seq. */
AGG_HOT void stack_alloc(struct aggregate *a, size_t k, uint64_t w, uint64_t bytes, uint64_t seq)
{
	struct stack_small *r = &a->small[k];
	struct stack_stats *st;

	if (!stack_small_is_full(r) && fits_blocks(w) && stats_small_fits32(bytes) &&
	    fits_blocks((uint64_t)r->s.allocations + w) &&
	    stats_small_fits32((uint64_t)r->s.allocated_bytes + bytes)) {
		r->s.allocations = (uint16_t)(r->s.allocations + w);
		r->s.allocated_bytes += (uint32_t)bytes;
	} else {
		st = stack_full(a, k);
		if (!st) {
			note_error(a);
			return;
		}
		st->s.allocations = sat_add(st->s.allocations, w, &a->saturated);
		st->s.allocated_bytes = sat_add(st->s.allocated_bytes, bytes, &a->saturated);
	}
	stack_live_add(a, k, bytes, w, seq);
}

/* What a free of w blocks of stack k adds besides their live bytes: a
 * temporary allocation (when temporary), freed blocks, and their lifetime
 * in events and ns. */
AGG_HOT void stack_freed(struct aggregate *a, size_t k, uint64_t w, bool temporary,
			uint64_t life_events, uint64_t life_ns)
{
	struct stack_small *r = &a->small[k];
	struct stack_stats *st;

	/* (events: factors below 2^32, their products fit 64 bits) */
	if (!stack_small_is_full(r) && fits_blocks(w) && life_events < UINT32_MAX &&
	    life_ns < STATS_SMALL_NS_MAX) { /* (the minima + 1 fit) */
		uint64_t temp = (uint64_t)r->s.temporary + (temporary ? w : 0);
		uint64_t freed = (uint64_t)r->s.freed + w;
		uint64_t events_sum = r->s.lifetime_events_sum + life_events * w, ns_all, ns_sum;

		if (fits_blocks(temp) && fits_blocks(freed) && stats_small_fits32(events_sum) &&
		    !__builtin_mul_overflow(life_ns, w, &ns_all) &&
		    !__builtin_add_overflow(figures_ns(&r->s, STATS_NS_SUM), ns_all, &ns_sum) &&
		    stats_small_fits_ns(ns_sum)) {
			r->s.temporary = (uint16_t)temp;
			r->s.freed = (uint16_t)freed;
			r->s.lifetime_events_sum = (uint32_t)events_sum;
			figures_set_ns(&r->s, STATS_NS_SUM, ns_sum);
			/* (an empty minimum, 0, is below none: min_plus1 - 1 wraps) */
			if (life_events < (uint32_t)(r->s.lifetime_events_min_plus1 - 1))
				r->s.lifetime_events_min_plus1 = (uint32_t)life_events + 1;
			if (life_events > r->s.lifetime_events_max)
				r->s.lifetime_events_max = (uint32_t)life_events;
			if (life_ns < figures_ns(&r->s, STATS_NS_MIN_PLUS1) - 1)
				figures_set_ns(&r->s, STATS_NS_MIN_PLUS1, life_ns + 1);
			if (life_ns > figures_ns(&r->s, STATS_NS_MAX))
				figures_set_ns(&r->s, STATS_NS_MAX, life_ns);
			return;
		}
	}
	st = stack_full(a, k);
	if (!st) {
		note_error(a);
		return;
	}
	if (temporary)
		st->s.temporary = sat_add(st->s.temporary, w, &a->saturated);
	st->s.freed = sat_add(st->s.freed, w, &a->saturated);
	st->s.lifetime_events_sum = sat_add(st->s.lifetime_events_sum,
					    sat_mul(life_events, w, &a->saturated), &a->saturated);
	st->s.lifetime_ns_sum = sat_add(st->s.lifetime_ns_sum, sat_mul(life_ns, w, &a->saturated),
					&a->saturated);
	if (life_events < st->s.lifetime_events_min)
		st->s.lifetime_events_min = life_events;
	if (life_events > st->s.lifetime_events_max)
		st->s.lifetime_events_max = life_events;
	if (life_ns < st->s.lifetime_ns_min)
		st->s.lifetime_ns_min = life_ns;
	if (life_ns > st->s.lifetime_ns_max)
		st->s.lifetime_ns_max = life_ns;
}

void aggregate_stack_stats(const struct aggregate *a, size_t k, struct stack_stats *out)
{
	const struct stack_small *r = &a->small[k];

	if (stack_small_is_full(r))
		*out = a->full[r->full_index];
	else
		small_unpack(r, out);
}

long aggregate_stack_stats_put(struct aggregate *a, const struct stack_stats *st)
{
	long k = stats_new(a, st->stack_id);
	struct stack_stats *full;

	if (k < 0)
		return -1;
	full = stack_make_full(a, (size_t)k);
	if (!full) {
		a->stat_count--;
		return -1;
	}
	*full = *st;
	return k;
}

/* A pool block (bit 63 of its address) is no longer live. */
static void pool_live_sub(struct aggregate *a, uint64_t bytes, uint64_t blocks)
{
	a->pool_live_bytes = sat_sub(a->pool_live_bytes, bytes, &a->saturated);
	a->pool_live_blocks = sat_sub(a->pool_live_blocks, blocks, &a->saturated);
}

/* ---- what a live block keeps outside the block table ---- */

/* Index of the entry of a->alloc_times for a block allocated at time_ns
 * with sequence number seq, and that block's seq_offset.  The newest entry
 * when it has that time and seq is less than BLOCK_SEQ_OFFSET_LIMIT past its
 * first, else a new one (time only moves forward and sequence numbers
 * mostly do, so entries are few: one per TIME stamp that an allocation
 * followed, a TIME stamp coming every 4096 events of a thread).  -1 on
 * ENOMEM (or 2^32 entries). */
static inline long alloc_time_index(struct aggregate *a, uint64_t time_ns, uint64_t seq,
				    uint32_t *seq_offset)
{
	size_t n = a->alloc_time_count;

	/* seq before the entry's first wraps around to more than the limit */
	if (n && a->alloc_times[n - 1].time_ns == time_ns &&
	    seq - a->alloc_times[n - 1].first_seq < BLOCK_SEQ_OFFSET_LIMIT) {
		*seq_offset = (uint32_t)(seq - a->alloc_times[n - 1].first_seq);
		return (long)(n - 1);
	}
	if (n >= UINT32_MAX)
		return -1;
	if (n == a->alloc_time_cap) {
		size_t cap = n ? n * 2 : 1024;
		struct alloc_time *v = realloc(a->alloc_times, cap * sizeof(*v));

		if (!v)
			return -1;
		a->alloc_times = v;
		a->alloc_time_cap = cap;
	}
	a->alloc_times[n].time_ns = time_ns;
	a->alloc_times[n].first_seq = seq;
	a->alloc_time_count = n + 1;
	*seq_offset = 0;
	return (long)n;
}

/* Records the weight of the block just made live at addr (nothing to keep
 * for weight 1).  Returns 0 or -ENOMEM. */
static int weight_put(struct aggregate *a, uint64_t addr, uint64_t weight)
{
	struct live_block w = {.addr = addr, .size_bytes = weight}, old;

	if (weight == 1)
		return 0;
	return block_table_insert(&a->weights, &w, &old) < 0 ? -ENOMEM : 0;
}

/* The weight of the block at addr, forgotten (the block is no longer live). */
static inline uint64_t weight_take(struct aggregate *a, uint64_t addr)
{
	struct live_block w;

	if (!a->weights.count || !block_table_remove(&a->weights, addr, &w))
		return 1;
	return w.size_bytes;
}

/* The weight of the live block at addr in a (unchanged). */
static uint64_t weight_get(const struct aggregate *a, uint64_t addr)
{
	struct live_block w;

	if (!a->weights.count || !block_table_find(&a->weights, addr, &w))
		return 1;
	return w.size_bytes;
}

/* ---- what the stacks' estimates rest on ---- */

/* Into *out, stack k's sample figures (a->stack_samples' entry, grown to
 * it), or NULL while none are kept and w is 1: a stack met before the
 * first weight other than 1 had one sample per allocation, of variance 0.
 * Returns 0 or -ENOMEM. */
static int stack_samples_at(struct aggregate *a, size_t k, uint64_t w,
			    struct sample_figures **out)
{
	*out = NULL;
	if (!a->stack_samples && w == 1)
		return 0;
	if (k >= a->stack_samples_cap || !a->stack_samples) {
		size_t cap = a->stack_samples_cap ? a->stack_samples_cap : 64;
		struct sample_figures *f;
		bool first = !a->stack_samples;

		while (cap <= k || cap < a->stat_count)
			cap *= 2;
		f = realloc(a->stack_samples, cap * sizeof(*f));
		if (!f)
			return -ENOMEM;
		memset(f + a->stack_samples_cap, 0, (cap - a->stack_samples_cap) * sizeof(*f));
		a->stack_samples = f;
		a->stack_samples_cap = cap;
		for (size_t j = 0; first && j < a->stat_count; j++) {
			struct stack_stats st;

			aggregate_stack_stats(a, j, &st);
			f[j].allocs = st.s.allocations;
			f[j].live = st.s.live_blocks;
		}
	}
	*out = &a->stack_samples[k];
	return 0;
}

/* A live sample of size_bytes and weight w, of the stack with statistics
 * index k, leaves the totals' sample figures and its stack's (freed, or
 * replaced at its address).  Returns 0 or -ENOMEM. */
static int samples_release(struct aggregate *a, size_t k, uint64_t size_bytes, uint64_t w)
{
	struct sample_figures *f;

	sample_figures_free(&a->samples, size_bytes, w);
	if (stack_samples_at(a, k, w, &f) < 0)
		return -ENOMEM;
	if (f)
		sample_figures_free(f, size_bytes, w);
	return 0;
}

/* ---- events ---- */

/* An allocation event; h is block_hash(ev->addr). */
AGG_HOT void on_alloc(struct aggregate *a, const struct alloc_event *ev, uint64_t h,
		      struct thread_last *th)
{
	uint64_t w = ev->weight ? ev->weight : 1;
	uint64_t bytes = sat_mul(ev->value, w, &a->saturated);
	struct live_block b, old;
	struct sample_figures *fk;
	long k, ti;
	int rc;

	if (th)
		th->last_alloc_addr = ev->addr;
	if (!ev->addr) {
		a->null_allocs++;
		return;
	}
	k = stats_index(a, ev->stack_id);
	ti = alloc_time_index(a, a->now_ns, ev->seq, &b.seq_offset);
	if (k < 0 || ti < 0) {
		note_error(a);
		return;
	}
	b.addr = ev->addr;
	b.size_bytes = ev->value;
	b.stat_index = (uint32_t)k;
	b.time_index = (uint32_t)ti;
	/* A block freed again soon goes among the young blocks while there is
	 * room (not while reading a parent up to a fork: its blocks must all be
	 * in the table the child is seeded from).  Either way a live block at
	 * the same address, in either table, is replaced. */
	if ((ev->flags & ALLOC_EV_PAIRED) && !a->seq_limit && a->young.count < YOUNG_MAX) {
		rc = a->young.count && young_remove(&a->young, ev->addr, &old)
			     ? 1
			     : block_table_remove_hashed(&a->blocks, ev->addr, h, &old);
		young_insert(&a->young, &b); /* there is room: checked above */
		a->young_allocations++;
	} else {
		rc = block_table_insert_hashed(&a->blocks, &b, h, &old);
		if (rc < 0) {
			note_error(a);
			return;
		}
		if (rc == 0 && a->young.count && young_remove(&a->young, ev->addr, &old))
			rc = 1;
	}
	if (rc == 1) {
		uint64_t old_w = weight_take(a, ev->addr);

		a->address_reused++;
		if (samples_release(a, old.stat_index, old.size_bytes, old_w) < 0) {
			note_error(a);
			return;
		}
		if (AGG_POOL_ADDR(ev->addr))
			pool_live_sub(a, sat_mul(old.size_bytes, old_w, &a->saturated), old_w);
		stack_live_sub(a, old.stat_index, sat_mul(old.size_bytes, old_w, &a->saturated),
			       old_w);
	}
	if (weight_put(a, ev->addr, w) < 0 || stack_samples_at(a, (size_t)k, w, &fk) < 0) {
		note_error(a);
		return;
	}
	a->allocations = sat_add(a->allocations, w, &a->saturated);
	a->allocated_bytes = sat_add(a->allocated_bytes, bytes, &a->saturated);
	sample_figures_add(&a->samples, ev->value, w, 1);
	if (AGG_POOL_ADDR(ev->addr)) {
		a->pool_allocations = sat_add(a->pool_allocations, w, &a->saturated);
		a->pool_allocated_bytes = sat_add(a->pool_allocated_bytes, bytes, &a->saturated);
		a->pool_live_bytes = sat_add(a->pool_live_bytes, bytes, &a->saturated);
		a->pool_live_blocks = sat_add(a->pool_live_blocks, w, &a->saturated);
	}
	stack_alloc(a, (size_t)k, w, bytes, ev->seq);
	if (fk)
		sample_figures_add(fk, ev->value, w, 1);
}

/* A free event; h is block_hash(ev->addr). */
AGG_HOT void on_free(struct aggregate *a, const struct alloc_event *ev, uint64_t h,
		     struct thread_last *th)
{
	uint64_t prev_alloc = th ? th->last_alloc_addr : 0;
	struct live_block b;
	uint64_t life_events, life_ns, w, bytes, alloc_ns, alloc_seq;

	if (th)
		th->last_alloc_addr = 0;
	if (!ev->addr)
		return; /* free(NULL), or the free part of realloc(NULL, n) */
	/* the hint says which table to look in first */
	if (ev->flags & ALLOC_EV_PAIRED
		    ? !young_remove(&a->young, ev->addr, &b) &&
			      !block_table_remove_hashed(&a->blocks, ev->addr, h, &b)
		    : !block_table_remove_hashed(&a->blocks, ev->addr, h, &b) &&
			      !(a->young.count && young_remove(&a->young, ev->addr, &b))) {
		if (a->unrecording_seen)
			a->unrecorded_block_frees++;
		else
			a->unmatched_frees++;
		return;
	}
	w = weight_take(a, ev->addr);
	if (prev_alloc == ev->addr)
		a->temporary = sat_add(a->temporary, w, &a->saturated);
	bytes = sat_mul(b.size_bytes, w, &a->saturated);
	if (samples_release(a, b.stat_index, b.size_bytes, w) < 0) {
		note_error(a);
		return;
	}
	if (AGG_POOL_ADDR(ev->addr))
		pool_live_sub(a, bytes, w);
	stack_live_sub(a, b.stat_index, bytes, w);
	a->blocks_freed = sat_add(a->blocks_freed, w, &a->saturated);
	if (ev->type == ALLOC_EV_FREE && ev->fn != TRACE_FREE_REALLOC_RELEASE)
		/* a release is the free part of a realloc */
		a->frees_weighted = sat_add(a->frees_weighted, w, &a->saturated);
	alloc_ns = a->alloc_times[b.time_index].time_ns;
	alloc_seq = a->alloc_times[b.time_index].first_seq + b.seq_offset;
	life_events = ev->seq > alloc_seq ? ev->seq - alloc_seq : 0;
	life_ns = a->now_ns > alloc_ns ? a->now_ns - alloc_ns : 0;
	stack_freed(a, b.stat_index, w, prev_alloc == ev->addr, life_events, life_ns);
}

static unsigned free_fn_call(unsigned fn)
{
	switch (fn) {
	case TRACE_FREE_SIZED:
		return AGG_CALL_FREE_SIZED;
	case TRACE_FREE_ALIGNED_SIZED:
		return AGG_CALL_FREE_ALIGNED_SIZED;
	case TRACE_FREE_REALLOC:
	case TRACE_FREE_REALLOCARRAY:
		return AGG_CALL_REALLOC_TO_ZERO;
	case TRACE_FREE_POOL:
		return AGG_CALL_POOL_FREE;
	case TRACE_FREE_REALLOC_RELEASE:
		return AGG_CALL_REALLOC_RELEASE;
	default:
		return AGG_CALL_FREE;
	}
}

/* One event; h is block_hash(ev->addr) (any value for a stamp). */
AGG_HOT void aggregate_process(struct aggregate *a, const struct alloc_event *ev, uint64_t h)
{
	struct thread_last *th;

	if (ev->type == ALLOC_EV_TIME) {
		/* The clock is monotonic: a stamp that reaches us late (a slot's
		 * stamp taken before its first event) never moves time back. */
		if (ev->value > a->now_ns) {
			a->now_ns = ev->value;
			timeline_note_time(&a->timeline, a->now_ns, a->last_seq, a->live_bytes,
					   a->live_blocks);
		}
		if (!a->time_known || ev->value < a->first_time_ns)
			a->first_time_ns = ev->value;
		if (ev->value > a->last_time_ns)
			a->last_time_ns = ev->value;
		a->time_known = true;
		return;
	}
	if (alloc_event_is_stamp(ev->type)) {
		/* a marker, a recording stop or start (trace_info keeps them)
		 * or the start of unrecorded allocations
		 * stands at a sequence number of its own, which its SEQ_SKIP
		 * took right before it: no failed realloc.  Its clock reading
		 * bounds the time of the events after it, whose own thread's
		 * stamp may be older. */
		if (ev->value > a->now_ns && a->time_known) {
			a->now_ns = ev->value;
			timeline_note_time(&a->timeline, a->now_ns, a->last_seq, a->live_bytes,
					   a->live_blocks);
		}
		if ((ev->type == ALLOC_EV_CONTROL && (ev->flags & ALLOC_EV_UNRECORDING)) ||
		    ev->type == ALLOC_EV_UNRECORDED)
			a->unrecording_seen = true;
		if (ev->seq && ev->seq == a->last_skip_seq) {
			a->failed_reallocs--;
			a->events--;
			a->last_skip_seq = 0;
		}
		return;
	}
	if (!(ev->flags & (ALLOC_EV_PLACEHOLDER | ALLOC_EV_REFUSED)))
		a->events++;
	if (ev->seq > a->last_seq)
		a->last_seq = ev->seq;
	th = thread_get(a, ev->tid);
	if (!th)
		note_error(a);
	switch (ev->type) {
	case ALLOC_EV_ALLOC:
		a->calls[ev->fn == TRACE_FN_POOL ? AGG_CALL_POOL
			 : ev->fn < TRACE_FN_POOL ? ev->fn : AGG_CALL_MALLOC]++;
		if (ev->fn == TRACE_FN_REALLOC || ev->fn == TRACE_FN_REALLOCARRAY)
			a->reallocs_weighted = sat_add(a->reallocs_weighted,
						       ev->weight ? ev->weight : 1, &a->saturated);
		on_alloc(a, ev, h, th);
		break;
	case ALLOC_EV_REALLOC_ALLOC:
		a->calls[ev->fn == TRACE_FN_REALLOCARRAY ? AGG_CALL_REALLOCARRAY
			 : ev->fn == TRACE_FN_POOL	  ? AGG_CALL_POOL_REALLOC
							  : AGG_CALL_REALLOC]++;
		a->reallocs++;
		if (ev->fn != TRACE_FN_POOL)
			a->reallocs_weighted = sat_add(a->reallocs_weighted,
						       ev->weight ? ev->weight : 1, &a->saturated);
		on_alloc(a, ev, h, th);
		break;
	case ALLOC_EV_FREE:
		a->calls[free_fn_call(ev->fn)]++;
		a->frees++;
		on_free(a, ev, h, th);
		break;
	case ALLOC_EV_REALLOC_FREE:
		on_free(a, ev, h, th);
		break;
	case ALLOC_EV_SEQ_SKIP:
		if (ev->flags & ALLOC_EV_REFUSED) {
			/* a record the reader refused (trace_info.alloc_errors) */
		} else if (ev->flags & ALLOC_EV_CUT) {
			a->cut_calls++;
		} else {
			a->failed_reallocs++;
			a->last_skip_seq = ev->seq;
		}
		if (th)
			th->last_alloc_addr = 0;
		break;
	}
}

/* Whether ev will look its block up in the block table: a free of a
 * young block will mostly not (aggregate_event's pipeline, aggregate_events'
 * lookahead prefetch the bucket of those that will). */
static inline bool looks_up_block(const struct alloc_event *ev)
{
	return !alloc_event_is_stamp(ev->type) && ev->addr &&
	       !((ev->flags & ALLOC_EV_PAIRED) &&
		 (ev->type == ALLOC_EV_FREE || ev->type == ALLOC_EV_REALLOC_FREE));
}

void aggregate_event(void *ctx, const struct alloc_event *ev)
{
	struct aggregate *a = ctx;
	unsigned slot;

	if (a->error || (a->seq_limit && ev->seq > a->seq_limit))
		return; /* after an error the report fails: no more work */
	if (looks_up_block(ev))
		block_table_prefetch(&a->blocks, ev->addr);
	if (a->pipe_count < AGG_PIPELINE) {
		a->pipeline[(a->pipe_head + a->pipe_count) % AGG_PIPELINE] = *ev;
		a->pipe_count++;
		return;
	}
	slot = a->pipe_head;
	aggregate_process(a, &a->pipeline[slot], block_hash(a->pipeline[slot].addr));
	a->pipeline[slot] = *ev;
	a->pipe_head = (slot + 1) % AGG_PIPELINE;
}

void aggregate_flush(struct aggregate *a)
{
	while (a->pipe_count > 0) {
		const struct alloc_event *ev = &a->pipeline[a->pipe_head];

		aggregate_process(a, ev, block_hash(ev->addr));
		a->pipe_head = (a->pipe_head + 1) % AGG_PIPELINE;
		a->pipe_count--;
	}
}

/* The block hash of ev[j] into hashes[j % AGG_PIPELINE], its bucket
 * prefetched when ev[j] will look it up: each event's hash is computed
 * once, AGG_PIPELINE events before it is processed. */
static inline void lookahead(struct aggregate *a, const struct alloc_event *ev, size_t j,
			     uint64_t hashes[AGG_PIPELINE])
{
	uint64_t h = block_hash(ev[j].addr);

	hashes[j % AGG_PIPELINE] = h;
	if (looks_up_block(&ev[j]))
		block_table_prefetch_hashed(&a->blocks, h);
}

void aggregate_events(struct aggregate *a, const struct alloc_event *ev, size_t n)
{
	size_t ahead = n < AGG_PIPELINE ? n : AGG_PIPELINE;
	uint64_t hashes[AGG_PIPELINE];

	_Static_assert((AGG_PIPELINE & (AGG_PIPELINE - 1)) == 0, "a mask takes j % AGG_PIPELINE");
	if (a->error)
		return; /* the report fails: no more work (each event would retry
			 * what failed, a table's growth being a pass over it) */
	aggregate_flush(a);
	for (size_t i = 0; i < ahead; i++)
		lookahead(a, ev, i, hashes);
	for (size_t i = 0; i < n; i++) {
		uint64_t h = hashes[i % AGG_PIPELINE];

		if (i + AGG_PIPELINE < n)
			lookahead(a, ev, i + AGG_PIPELINE, hashes);
		if (a->seq_limit && ev[i].seq > a->seq_limit)
			continue;
		aggregate_process(a, &ev[i], h);
	}
}

struct seed_ctx {
	struct aggregate *a;
	const struct aggregate *parent;
	uint64_t fork_seq, fork_time_ns;
	long stat;
	int error;
};

static void seed_block(void *ctx, const struct live_block *pb)
{
	struct seed_ctx *c = ctx;
	struct aggregate *a = c->a;
	struct live_block b = *pb, old;
	uint64_t w = weight_get(c->parent, b.addr);
	uint64_t bytes = sat_mul(b.size_bytes, w, &a->saturated);
	struct sample_figures *fs;
	long ti;
	int rc;

	if (c->error)
		return;
	/* lifetimes of inherited blocks count from the fork */
	ti = alloc_time_index(a, c->fork_time_ns, c->fork_seq, &b.seq_offset);
	if (ti < 0) {
		c->error = -ENOMEM;
		return;
	}
	b.stat_index = (uint32_t)c->stat;
	b.time_index = (uint32_t)ti;
	rc = block_table_insert(&a->blocks, &b, &old);
	if (rc < 0) {
		c->error = rc;
		return;
	}
	if (rc == 1) { /* cannot happen: parent addresses are distinct */
		uint64_t old_w = weight_take(a, b.addr);

		if (samples_release(a, old.stat_index, old.size_bytes, old_w) < 0) {
			c->error = -ENOMEM;
			return;
		}
		stack_live_sub(a, old.stat_index, sat_mul(old.size_bytes, old_w, &a->saturated),
			       old_w);
	}
	if (weight_put(a, b.addr, w) < 0) {
		c->error = -ENOMEM;
		return;
	}
	a->inherited_blocks = sat_add(a->inherited_blocks, w, &a->saturated);
	a->inherited_bytes = sat_add(a->inherited_bytes, bytes, &a->saturated);
	sample_figures_add(&a->samples, b.size_bytes, w, 0);
	if (stack_samples_at(a, (size_t)c->stat, w, &fs) < 0) {
		c->error = -ENOMEM;
		return;
	}
	stack_live_add(a, (size_t)c->stat, bytes, w, c->fork_seq);
	if (fs)
		sample_figures_add(fs, b.size_bytes, w, 0);
}

int aggregate_seed_inherited(struct aggregate *a, const struct aggregate *parent,
			     uint64_t fork_seq, uint64_t fork_time_ns)
{
	aggregate_flush(a);
	struct seed_ctx c = {a, parent, fork_seq, fork_time_ns, stats_index(a, AGG_STACK_INHERITED),
			     0};

	if (c.stat < 0)
		return -ENOMEM;
	a->inherited_seeded = true;
	a->saturated = a->saturated || parent->saturated;
	/* a parent that had stopped or sampled may have left blocks unrecorded,
	 * which the child may free */
	if (parent->unrecording_seen)
		a->unrecording_seen = true;
	/* the parent's blocks come in its table's order (block_table_reserve) */
	if (block_table_reserve(&a->blocks,
				a->blocks.count + parent->blocks.count + parent->young.count) < 0 ||
	    block_table_reserve(&a->weights, a->weights.count + parent->weights.count) < 0)
		return -ENOMEM;
	block_table_each(&parent->blocks, seed_block, &c);
	/* none while the parent is read up to the fork (on_alloc), but a
	 * parent read to its end may hold some */
	for (size_t i = 0; i < YOUNG_BUCKETS; i++)
		if (parent->young.b[i].addr)
			seed_block(&c, &parent->young.b[i]);
	return c.error;
}

void aggregate_finish(struct aggregate *a)
{
	aggregate_flush(a);
	for (size_t k = 0; k < a->stat_count; k++)
		if (stack_small_is_full(&a->small[k]))
			stats_touch(a, &a->full[a->small[k].full_index]);
		else
			small_touch(a, &a->small[k]);
	timeline_finish(&a->timeline, a->now_ns, a->last_seq, a->live_bytes, a->live_blocks);
}

void aggregate_release_blocks(struct aggregate *a, struct huge_spare *spare)
{
	if (spare)
		block_table_detach(&a->blocks, spare);
	else
		block_table_free(&a->blocks);
	block_table_free(&a->weights);
	/* the stack id -> statistics index serves events only (on 524,288
	 * stacks some 20 MiB, held through the sites' build before) */
	stack_slots_free(a->stack_index, a->stack_index_reserved);
	a->stack_index = NULL;
	a->stack_index_cap = 0;
	a->stack_index_reserved = 0;
}

/* ---- packed statistics (the sites' build) ---- */

static inline uint8_t *varint_put(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

static inline const uint8_t *varint_get(const uint8_t *p, uint64_t *v)
{
	uint64_t x = 0;
	unsigned shift = 0;

	if (*p < 0x80) { /* the common case: most fields are small */
		*v = *p;
		return p + 1;
	}
	while (*p & 0x80) {
		x |= (uint64_t)(*p++ & 0x7f) << shift;
		shift += 7;
	}
	*v = x | (uint64_t)*p++ << shift;
	return p;
}

/* The most bytes an entry takes: the mask (2 bytes) and 16 fields, each a
 * varint of 10 bytes at most. */
#define PACKED_ENTRY_MAX 162
#define PACKED_FIELDS 16

/* s's fields in packing order, the minima as value + 1, wrapping (so that
 * an empty minimum, UINT64_MAX, is 0 as the other fields' empty value, and
 * a small one a short varint: as UINT64_MAX - value both minima took ten
 * bytes, half of an entry on 262,145 stacks). */
static void stats_fields(const struct alloc_stats *s, uint64_t f[PACKED_FIELDS])
{
	f[0] = s->allocations;
	f[1] = s->allocated_bytes;
	f[2] = s->live_bytes;
	f[3] = s->live_blocks;
	f[4] = s->max_live_bytes;
	f[5] = s->max_live_blocks;
	f[6] = s->peak_bytes;
	f[7] = s->peak_blocks;
	f[8] = s->temporary;
	f[9] = s->freed;
	f[10] = s->lifetime_events_sum;
	f[11] = s->lifetime_events_min + 1;
	f[12] = s->lifetime_events_max;
	f[13] = s->lifetime_ns_sum;
	f[14] = s->lifetime_ns_min + 1;
	f[15] = s->lifetime_ns_max;
}

/* An entry: a mask of the fields that are not 0 (2 bytes, little-endian),
 * those fields. */
static uint8_t *stats_pack_one(uint8_t *p, const struct stack_stats *st)
{
	uint64_t f[PACKED_FIELDS];
	unsigned mask = 0;
	uint8_t *q = p + 2;

	stats_fields(&st->s, f);
	for (unsigned i = 0; i < PACKED_FIELDS; i++) {
		if (f[i]) {
			mask |= 1u << i;
			q = varint_put(q, f[i]);
		}
	}
	p[0] = (uint8_t)mask;
	p[1] = (uint8_t)(mask >> 8);
	return q;
}

/* Statistics packed between two drops of the packed ones' memory. */
#define PACK_DROP_STATS (HUGE_ARRAY_MIN / sizeof(struct stack_small))

/* Grows out's bytes: to first bytes (a first guess of 16 bytes a stack),
 * then doubling; on huge pages, grown in place, once 2 MiB or more (the
 * packing's small-page faults were a fifth of the report's left on
 * 262,145 stacks).  Returns 0 or -ENOMEM (out unchanged). */
static int packed_grow(struct stats_packed *out, size_t first)
{
	size_t n = out->cap ? out->cap * 2 : first, reserved = out->bytes_reserved;
	uint8_t *v;

	if (reserved) {
		v = huge_array_grow(out->bytes, out->cap, n, &reserved);
		out->bytes_reserved = reserved;
	} else if (n >= HUGE_ARRAY_MIN) {
		v = huge_array_alloc(n, &reserved);
		if (v) {
			if (out->size)
				memcpy(v, out->bytes, out->size);
			free(out->bytes);
			out->bytes_reserved = reserved;
		}
	} else {
		v = realloc(out->bytes, n);
	}
	if (!v)
		return -ENOMEM;
	out->bytes = v;
	out->cap = n;
	return 0;
}

int aggregate_stats_pack(struct aggregate *a, struct stats_packed *out)
{
	struct stack_stats st;

	memset(out, 0, sizeof(*out));
	if (a->stat_count) {
		out->stack_ids = malloc(a->stat_count * sizeof(*out->stack_ids));
		if (!out->stack_ids)
			return -ENOMEM;
	}
	for (size_t k = 0; k < a->stat_count; k++) {
		if (out->cap - out->size < PACKED_ENTRY_MAX &&
		    packed_grow(out, a->stat_count * 16 + PACKED_ENTRY_MAX) < 0) {
			stats_packed_free(out);
			return -ENOMEM;
		}
		aggregate_stack_stats(a, k, &st);
		out->size = (size_t)(stats_pack_one(out->bytes + out->size, &st) - out->bytes);
		out->stack_ids[k] = st.stack_id;
		/* each 2 MiB of small statistics packed goes back to the
		 * system, so that the packed copy grows in their place, not
		 * beside them */
		if (a->small_mem.reserved && (k + 1) % PACK_DROP_STATS == 0)
			huge_array_drop_head(a->small, (k + 1) * sizeof(*a->small));
	}
	out->count = a->stat_count;
	if (out->bytes_reserved) { /* the huge page past the end split off */
		huge_array_trim(out->bytes, out->size, &out->bytes_reserved);
		out->cap = out->size;
	}
	grow_big_free(&a->small_mem);
	grow_big_free(&a->full_mem);
	a->small = NULL;
	a->full = NULL;
	a->stat_cap = 0;
	a->full_count = 0;
	return 0;
}

const uint8_t *stats_packed_read(const uint8_t *p, struct alloc_stats *s)
{
	uint64_t f[PACKED_FIELDS] = {0};
	unsigned mask = p[0] | (unsigned)p[1] << 8;

	for (p += 2; mask; mask &= mask - 1)
		p = varint_get(p, &f[__builtin_ctz(mask)]);
	s->allocations = f[0];
	s->allocated_bytes = f[1];
	s->live_bytes = f[2];
	s->live_blocks = f[3];
	s->max_live_bytes = f[4];
	s->max_live_blocks = f[5];
	s->peak_bytes = f[6];
	s->peak_blocks = f[7];
	s->temporary = f[8];
	s->freed = f[9];
	s->lifetime_events_sum = f[10];
	s->lifetime_events_min = f[11] - 1;
	s->lifetime_events_max = f[12];
	s->lifetime_ns_sum = f[13];
	s->lifetime_ns_min = f[14] - 1;
	s->lifetime_ns_max = f[15];
	return p;
}

void stats_packed_free(struct stats_packed *p)
{
	free(p->stack_ids);
	if (p->bytes_reserved)
		huge_array_free(p->bytes, p->bytes_reserved);
	else
		free(p->bytes);
	memset(p, 0, sizeof(*p));
}
