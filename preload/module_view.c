/*
 * preload/module_view.c - the two module views that take turns being
 * current (preload/module_view.h): the writer fills the other one and
 * publishes it, readers check its generation.  A view too small for the
 * next map is replaced by one of twice the map's ranges and stays mapped
 * (a reader may still hold it), so the retired ones add up to less than
 * the two in use.  Never calls malloc; the readers never block.
 */
#include <stddef.h>

#include "preload/mem.h"
#include "preload/module_view.h"

_Atomic(struct module_view *) module_view_current;
/* The two views; only the writer, under its lock, touches this array. */
static struct module_view *module_view_pair[2];

int module_view_contains(uint64_t ip, uint64_t *epoch)
{
	for (;;) {
		struct module_view *v =
			atomic_load_explicit(&module_view_current, memory_order_acquire);
		uint64_t gen;
		uint32_t lo = 0, hi;
		int found = 0;

		if (!v) {
			*epoch = 0;
			return 1;
		}
		gen = atomic_load_explicit(&v->gen, memory_order_acquire);
		*epoch = atomic_load_explicit(&v->epoch, memory_order_relaxed);
		hi = atomic_load_explicit(&v->nranges, memory_order_relaxed);
		if (hi > v->cap) /* torn by a rewrite: the check below fails */
			hi = v->cap;
		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;
			uint64_t start = __atomic_load_n(&v->ranges[mid].start, __ATOMIC_RELAXED);
			uint64_t end = __atomic_load_n(&v->ranges[mid].end, __ATOMIC_RELAXED);

			if (ip < start) {
				hi = mid;
			} else if (ip >= end) {
				lo = mid + 1;
			} else {
				found = 1;
				break;
			}
		}
		atomic_thread_fence(memory_order_acquire);
		if (!(gen & 1) && atomic_load_explicit(&v->gen, memory_order_relaxed) == gen)
			return found;
	}
}

/* A new, unpublished view with room for cap ranges; NULL when out of
 * memory. */
static struct module_view *module_view_map(uint32_t cap)
{
	struct module_view *v =
		preload_mem_map(sizeof(struct module_view) + (size_t)cap * sizeof(struct module_range));

	if (v)
		v->cap = cap;
	return v;
}

int module_view_publish(uint64_t epoch, const struct module_range *ranges, uint32_t n)
{
	struct module_view *cur = atomic_load_explicit(&module_view_current, memory_order_relaxed);
	int slot = module_view_pair[0] == cur ? 1 : 0;
	struct module_view *v = module_view_pair[slot];
	uint64_t gen;

	if (!v || v->cap < n) {
		v = module_view_map(2 * n + 16);
		if (!v)
			return -1;
		module_view_pair[slot] = v; /* the old one stays mapped for its readers */
	}
	gen = (atomic_load_explicit(&v->gen, memory_order_relaxed) + 1) | 1;
	atomic_store_explicit(&v->gen, gen, memory_order_relaxed);
	atomic_thread_fence(memory_order_release);
	atomic_store_explicit(&v->epoch, epoch, memory_order_relaxed);
	atomic_store_explicit(&v->nranges, n, memory_order_relaxed);
	for (uint32_t i = 0; i < n; i++) {
		__atomic_store_n(&v->ranges[i].start, ranges[i].start, __ATOMIC_RELAXED);
		__atomic_store_n(&v->ranges[i].end, ranges[i].end, __ATOMIC_RELAXED);
	}
	atomic_store_explicit(&v->gen, gen + 1, memory_order_release);
	atomic_store_explicit(&module_view_current, v, memory_order_release);
	return 0;
}
