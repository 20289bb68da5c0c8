/*
 * preload/sample_set.c - the set of live sampled blocks (see
 * preload/sample_set.h): chains of singly linked nodes, each holding the
 * addresses of the filter buckets with its low bits, striped locks; the
 * bitmap and the stripes are one mapping made at the first insert, the
 * chain heads another, grown with the live samples (none of them is in the
 * library's writable segment, which a conservative collector scans as
 * roots) and the nodes are carved in batches from chunks shared by all
 * stripes, so a run with few samples touches few pages.  With millions of
 * live samples (small sample rates) there is one chain per bucket, so
 * chains stay short.
 *
 * Must never call malloc; the locks are held only for a chain walk.
 */
#include <stddef.h>

#include "preload/lock.h"
#include "preload/mem.h"
#include "preload/sample_set.h"

#define SAMPLE_SET_BUCKETS (1u << SAMPLE_SET_BUCKETS_LOG)
#define SAMPLE_SET_STRIPES 256u
#define SAMPLE_SET_CHUNK_BYTES (64u << 10) /* nodes mapped at a time, for all stripes */
#define SAMPLE_SET_BATCH 16u               /* nodes a stripe takes from a chunk at a time */
#define SAMPLE_SET_CHAINS_MIN_LOG 10       /* 1024 chain heads at first: 8 KiB */

struct sample_node {
	const void *addr;
	struct sample_node *next;
};

struct sample_stripe {
	struct preload_lock lock;
	struct sample_node *spare; /* free nodes of this stripe */
} __attribute__((aligned(64)));

/* The bitmap and the stripes: one mapping made at the first insert, the
 * stripes at a page boundary after the bitmap. */
#define SAMPLE_SET_BITS_BYTES (SAMPLE_SET_BUCKETS / 8)
#define SAMPLE_SET_STRIPES_BYTES (SAMPLE_SET_STRIPES * sizeof(struct sample_stripe))

_Atomic(_Atomic uint64_t *) sample_set_bits;
/* SAMPLE_SET_STRIPES stripes, NULL until the first insert. */
static struct sample_stripe *sample_set_stripes;
/* The chain heads: bucket b's addresses are on chain b & (chains - 1), so
 * that its stripe (b % SAMPLE_SET_STRIPES) is the chain's whatever the
 * number of chains (at least SAMPLE_SET_STRIPES).  Sized to the live
 * samples: 2^SAMPLE_SET_CHAINS_MIN_LOG at first, 4 times as many each time
 * the live samples pass 2 per chain, up to one per bucket; 2^18 heads from
 * the start were 2 MiB, most of it touched by 1000 live samples.  Read and
 * written only with a stripe lock held; a resize holds them all.  The
 * pointer is published (release) after the bitmap and the stripes. */
static _Atomic(struct sample_node **) sample_set_heads;
static _Atomic unsigned sample_set_chains_log;
/* Live samples, counted under their stripe locks (relaxed adds: only
 * sampled blocks' inserts and removes, never an unsampled free). */
static _Atomic uint64_t sample_set_live;
/* Guards mapping the set and the chunk of nodes [chunk_next, chunk_end);
 * taken inside a stripe lock, never the other way round. */
static struct preload_lock sample_set_map_lock;
static struct sample_node *chunk_next, *chunk_end;

/* The stripe of bucket b; only once the heads are seen. */
static inline struct sample_stripe *sample_set_stripe(uint32_t b)
{
	return &sample_set_stripes[b % SAMPLE_SET_STRIPES];
}

/* The bitmap; only once the heads are seen. */
static inline _Atomic uint64_t *sample_set_bits_get(void)
{
	return atomic_load_explicit(&sample_set_bits, memory_order_relaxed);
}

/* The chain of bucket b (a stripe lock held). */
static inline uint32_t sample_set_chain(uint32_t b)
{
	return b & ((1u << atomic_load_explicit(&sample_set_chains_log, memory_order_relaxed)) - 1);
}

/* The bitmap, the stripes and the first chain heads, mapped on the first
 * call; the heads, or NULL when no memory. */
static struct sample_node **sample_set_heads_get(void)
{
	struct sample_node **heads = atomic_load_explicit(&sample_set_heads, memory_order_acquire);

	if (heads)
		return heads;
	preload_lock_take(&sample_set_map_lock);
	heads = atomic_load_explicit(&sample_set_heads, memory_order_relaxed);
	if (!heads) {
		char *map = preload_mem_map(SAMPLE_SET_BITS_BYTES + SAMPLE_SET_STRIPES_BYTES);
		struct sample_node **h =
			map ? preload_mem_map(sizeof(*h) << SAMPLE_SET_CHAINS_MIN_LOG) : NULL;

		if (h) {
			sample_set_stripes = (struct sample_stripe *)(map + SAMPLE_SET_BITS_BYTES);
			atomic_store_explicit(&sample_set_chains_log, SAMPLE_SET_CHAINS_MIN_LOG,
					      memory_order_relaxed);
			atomic_store_explicit(&sample_set_bits, (_Atomic uint64_t *)map,
					      memory_order_relaxed);
			atomic_store_explicit(&sample_set_heads, h, memory_order_release);
			heads = h;
		} else if (map) {
			preload_mem_unmap(map, SAMPLE_SET_BITS_BYTES + SAMPLE_SET_STRIPES_BYTES);
		}
	}
	preload_lock_give(&sample_set_map_lock);
	return heads;
}

/* Four times as many chains when the live samples passed 2 per chain:
 * takes every stripe lock (in the order fork prepare does; the caller holds
 * none), moves each node to its chain among the new heads and unmaps the
 * old ones.  Without memory the chains stay as they are (longer). */
static void sample_set_grow(void)
{
	struct sample_node **old, **heads;
	unsigned log;

	for (unsigned i = 0; i < SAMPLE_SET_STRIPES; i++)
		preload_lock_take(&sample_set_stripes[i].lock);
	log = atomic_load_explicit(&sample_set_chains_log, memory_order_relaxed);
	old = atomic_load_explicit(&sample_set_heads, memory_order_relaxed);
	if (log < SAMPLE_SET_BUCKETS_LOG &&
	    atomic_load_explicit(&sample_set_live, memory_order_relaxed) > (2ull << log)) {
		unsigned new_log = log + 2 > SAMPLE_SET_BUCKETS_LOG ? SAMPLE_SET_BUCKETS_LOG : log + 2;

		heads = preload_mem_map(sizeof(*heads) << new_log);
		if (heads) {
			atomic_store_explicit(&sample_set_chains_log, new_log, memory_order_relaxed);
			for (uint32_t c = 0; c < (1u << log); c++) {
				struct sample_node *n = old[c], *next;

				for (; n; n = next) {
					uint32_t d = sample_set_chain(sample_set_bucket(n->addr));

					next = n->next;
					n->next = heads[d];
					heads[d] = n;
				}
			}
			atomic_store_explicit(&sample_set_heads, heads, memory_order_release);
			preload_mem_unmap(old, sizeof(*old) << log);
		}
	}
	for (unsigned i = SAMPLE_SET_STRIPES; i-- > 0;)
		preload_lock_give(&sample_set_stripes[i].lock);
}

/* A free node of stripe s (its lock held), or NULL. */
static struct sample_node *sample_node_take(struct sample_stripe *s)
{
	struct sample_node *n = s->spare;

	if (n) {
		s->spare = n->next;
		return n;
	}
	preload_lock_take(&sample_set_map_lock);
	if (chunk_next == chunk_end) {
		struct sample_node *c = preload_mem_map(SAMPLE_SET_CHUNK_BYTES);

		if (c) {
			chunk_next = c;
			chunk_end = c + SAMPLE_SET_CHUNK_BYTES / sizeof(*c);
		}
	}
	if (chunk_next != chunk_end) {
		n = chunk_next;
		chunk_next += SAMPLE_SET_BATCH;
	}
	preload_lock_give(&sample_set_map_lock);
	if (!n)
		return NULL;
	for (unsigned i = 1; i + 1 < SAMPLE_SET_BATCH; i++)
		n[i].next = &n[i + 1];
	n[SAMPLE_SET_BATCH - 1].next = NULL;
	s->spare = &n[1];
	return n;
}

int sample_set_insert(const void *addr)
{
	uint32_t b = sample_set_bucket(addr);
	struct sample_node **heads = sample_set_heads_get(), *n = NULL;
	struct sample_stripe *s;
	uint64_t live = 0;
	unsigned log;

	if (!heads)
		return -1;
	s = sample_set_stripe(b);
	preload_lock_take(&s->lock);
	n = sample_node_take(s);
	if (n) {
		/* The heads now, under the lock: a resize may have replaced
		 * them.  The head is written before it is read: a first read
		 * of a page of the heads would map the zero page, and the
		 * write after it would flush that mapping from every processor
		 * running the program (an interrupt to each). */
		heads = atomic_load_explicit(&sample_set_heads, memory_order_relaxed);
		n->addr = addr;
		n->next = __atomic_exchange_n(&heads[sample_set_chain(b)], n, __ATOMIC_RELAXED);
		atomic_fetch_or_explicit(&sample_set_bits_get()[b / 64], 1ull << (b % 64),
					 memory_order_release);
		live = atomic_fetch_add_explicit(&sample_set_live, 1, memory_order_relaxed) + 1;
	}
	preload_lock_give(&s->lock);
	log = atomic_load_explicit(&sample_set_chains_log, memory_order_relaxed);
	if (live > (2ull << log) && log < SAMPLE_SET_BUCKETS_LOG)
		sample_set_grow();
	return n ? 0 : -1;
}

/* Takes addr out of its chain (s, the stripe of its bucket b, locked);
 * returns 1 when it was there.  b's bit is cleared when no other address
 * of bucket b is left on the chain. */
static int sample_set_unlink(struct sample_stripe *s, const void *addr, uint32_t b)
{
	struct sample_node **heads = atomic_load_explicit(&sample_set_heads, memory_order_relaxed);
	struct sample_node **link, *n;
	int found = 0, others = 0;

	for (link = &heads[sample_set_chain(b)]; (n = *link) != NULL;) {
		if (!found && n->addr == addr) {
			*link = n->next;
			n->next = s->spare;
			s->spare = n;
			found = 1;
			if (others)
				break;
			continue;
		}
		if (sample_set_bucket(n->addr) == b) {
			others = 1;
			if (found)
				break;
		}
		link = &n->next;
	}
	if (found)
		atomic_fetch_sub_explicit(&sample_set_live, 1, memory_order_relaxed);
	if (!others)
		atomic_fetch_and_explicit(&sample_set_bits_get()[b / 64], ~(1ull << (b % 64)),
					  memory_order_relaxed);
	return found;
}

int sample_set_remove_locked_path(const void *addr, uint32_t b)
{
	struct sample_node **heads = atomic_load_explicit(&sample_set_heads, memory_order_acquire);
	struct sample_stripe *s;
	int found;

	if (!heads) /* no insert seen yet, so addr was not inserted by a thread
		     * whose hand-over reached this one */
		return 0;
	s = sample_set_stripe(b);
	preload_lock_take(&s->lock);
	found = sample_set_unlink(s, addr, b);
	preload_lock_give(&s->lock);
	return found;
}

int sample_set_remove_nested(const void *addr)
{
	uint32_t b = sample_set_bucket(addr);
	struct sample_node **heads = atomic_load_explicit(&sample_set_heads, memory_order_acquire);
	struct sample_stripe *s;
	int found;

	if (!heads || !sample_set_may_hold(addr))
		return 0;
	s = sample_set_stripe(b);
	if (!preload_lock_try(&s->lock))
		return -1;
	found = sample_set_unlink(s, addr, b);
	preload_lock_give(&s->lock);
	return found;
}

/* Whether fork prepare took the stripe locks (forks are serialized by the
 * map lock, held from prepare to release). */
static int sample_set_fork_took_stripes;

void sample_set_fork_prepare(void)
{
	/* With no heads mapped no thread can hold a stripe lock (insert takes
	 * one only once the heads exist, remove only when it found them), and
	 * none can get the heads while the map lock is held: the stripes are
	 * not mapped then (exact mode never maps the heads). */
	preload_lock_take(&sample_set_map_lock);
	sample_set_fork_took_stripes =
		atomic_load_explicit(&sample_set_heads, memory_order_relaxed) != NULL;
	if (!sample_set_fork_took_stripes)
		return;
	preload_lock_give(&sample_set_map_lock);
	for (unsigned i = 0; i < SAMPLE_SET_STRIPES; i++)
		preload_lock_take(&sample_set_stripes[i].lock);
	preload_lock_take(&sample_set_map_lock);
}

void sample_set_fork_release(void)
{
	int stripes = sample_set_fork_took_stripes;

	preload_lock_give(&sample_set_map_lock);
	if (stripes)
		for (unsigned i = 0; i < SAMPLE_SET_STRIPES; i++)
			preload_lock_give(&sample_set_stripes[i].lock);
}
