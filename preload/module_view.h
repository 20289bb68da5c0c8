/*
 * preload/module_view.h - the published module map as its readers see it:
 * the epoch and the sorted executable ranges, read lock-free (also inside
 * a signal handler, and while the writer is stopped on the same thread).
 *
 * Two views take turns: the writer (preload/modules.c, under its lock)
 * fills the one that is not current and then makes it current, so a view is
 * rewritten only after it stopped being current.  A reader that loaded a
 * view before it was rewritten finds its generation changed and starts
 * again at the current view (a seqlock); no view is ever unmapped, so no
 * reader can touch freed memory, and the memory of the views is that of
 * two maps, not of every map ever published.
 */
#ifndef MPROF_PRELOAD_MODULE_VIEW_H
#define MPROF_PRELOAD_MODULE_VIEW_H

#include <stdatomic.h>
#include <stdint.h>

/* One executable segment: [start, end). */
struct module_range {
	uint64_t start, end;
};

/* A view: odd gen while the writer rewrites it.  cap never changes. */
struct module_view {
	_Atomic uint64_t gen;
	_Atomic uint64_t epoch;
	_Atomic uint32_t nranges;
	uint32_t cap;
	struct module_range ranges[]; /* read and written with relaxed atomics */
};

/* The current view (NULL before the first publish). */
extern _Atomic(struct module_view *) module_view_current;

/* The epoch of the current view (0 before the first publish).  Inline: the
 * allocator's shortest path reads it on every call. */
static inline uint64_t module_view_epoch(void)
{
	for (;;) {
		struct module_view *v =
			atomic_load_explicit(&module_view_current, memory_order_acquire);
		uint64_t gen, epoch;

		if (!v)
			return 0;
		gen = atomic_load_explicit(&v->gen, memory_order_acquire);
		epoch = atomic_load_explicit(&v->epoch, memory_order_relaxed);
		atomic_thread_fence(memory_order_acquire);
		if (!(gen & 1) && atomic_load_explicit(&v->gen, memory_order_relaxed) == gen)
			return epoch;
	}
}

/* Whether ip lies in a range of the current view (1 before the first
 * publish); *epoch gets the view's epoch.  Lock-free. */
int module_view_contains(uint64_t ip, uint64_t *epoch);

/*
 * Publishes epoch with the n ranges of ranges (sorted by start, not
 * overlapping): fills the view that is not current, growing it when too
 * small, then makes it current.  The writer's lock must be held.  Returns
 * 0, or -1 when out of memory (the current view stays).
 */
int module_view_publish(uint64_t epoch, const struct module_range *ranges, uint32_t n);

#endif
