/*
 * preload/sample_set.c - the set of live sampled blocks (see
 * preload/sample_set.h): buckets of singly linked nodes, striped locks,
 * nodes carved from pages that each stripe maps for itself and never
 * unmaps.
 *
 * Must never call malloc; the locks are held only for a bucket walk.
 */
#include <stddef.h>

#include "preload/lock.h"
#include "preload/mem.h"
#include "preload/sample_set.h"

#define SAMPLE_SET_BUCKETS (1u << SAMPLE_SET_BUCKETS_LOG)
#define SAMPLE_SET_STRIPES 256u
#define SAMPLE_SET_PAGE_BYTES 4096u

struct sample_node {
	const void *addr;
	struct sample_node *next;
};

struct sample_stripe {
	struct preload_lock lock;
	struct sample_node *spare; /* free nodes of this stripe */
} __attribute__((aligned(64)));

_Atomic uint64_t sample_set_bits[SAMPLE_SET_BUCKETS / 64];
/* Zero pages until a sample lands in them. */
static struct sample_node *sample_set_heads[SAMPLE_SET_BUCKETS];
static struct sample_stripe sample_set_stripes[SAMPLE_SET_STRIPES];

/* A free node of stripe s (its lock held), or NULL. */
static struct sample_node *sample_node_take(struct sample_stripe *s)
{
	struct sample_node *n = s->spare;

	if (!n) {
		n = preload_mem_map(SAMPLE_SET_PAGE_BYTES);
		if (!n)
			return NULL;
		for (size_t i = 1; i + 1 < SAMPLE_SET_PAGE_BYTES / sizeof(*n); i++)
			n[i].next = &n[i + 1];
		n[SAMPLE_SET_PAGE_BYTES / sizeof(*n) - 1].next = NULL;
		s->spare = &n[1];
		return n;
	}
	s->spare = n->next;
	return n;
}

int sample_set_insert(const void *addr)
{
	uint32_t b = sample_set_bucket(addr);
	struct sample_stripe *s = &sample_set_stripes[b % SAMPLE_SET_STRIPES];
	struct sample_node *n;

	preload_lock_take(&s->lock);
	n = sample_node_take(s);
	if (n) {
		/* The head is written before it is read: a first read of a
		 * page of the array would map the zero page, and the write
		 * after it would flush that mapping from every processor
		 * running the program (an interrupt to each). */
		n->addr = addr;
		n->next = __atomic_exchange_n(&sample_set_heads[b], n, __ATOMIC_RELAXED);
		atomic_fetch_or_explicit(&sample_set_bits[b / 64], 1ull << (b % 64),
					 memory_order_release);
	}
	preload_lock_give(&s->lock);
	return n ? 0 : -1;
}

int sample_set_remove_locked_path(const void *addr, uint32_t b)
{
	struct sample_stripe *s = &sample_set_stripes[b % SAMPLE_SET_STRIPES];
	struct sample_node **link, *n;
	int found = 0;

	preload_lock_take(&s->lock);
	for (link = &sample_set_heads[b]; (n = *link) != NULL; link = &n->next) {
		if (n->addr == addr) {
			*link = n->next;
			n->next = s->spare;
			s->spare = n;
			found = 1;
			break;
		}
	}
	if (!sample_set_heads[b])
		atomic_fetch_and_explicit(&sample_set_bits[b / 64], ~(1ull << (b % 64)),
					  memory_order_relaxed);
	preload_lock_give(&s->lock);
	return found;
}

void sample_set_fork_prepare(void)
{
	for (unsigned i = 0; i < SAMPLE_SET_STRIPES; i++)
		preload_lock_take(&sample_set_stripes[i].lock);
}

void sample_set_fork_release(void)
{
	for (unsigned i = 0; i < SAMPLE_SET_STRIPES; i++)
		preload_lock_give(&sample_set_stripes[i].lock);
}
