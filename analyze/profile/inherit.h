/*
 * analyze/profile/inherit.h - the blocks a fork child's trace starts with:
 * those live in its parent at the fork.  The parent's trace is found (META's
 * parent_trace, or FILE.PPID beside the child) and read up to the fork;
 * for the children of one parent that a report reads together, once for
 * all of them (inherit_each).
 */
#ifndef MPROF_ANALYZE_PROFILE_INHERIT_H
#define MPROF_ANALYZE_PROFILE_INHERIT_H

#include <stddef.h>
#include <stdint.h>

#include "analyze/aggregate/aggregate.h"

#define INHERIT_NOTE_BYTES 768 /* a note on inherited blocks, with its NUL */

/* What one fork child inherited, found before its own trace is read. */
struct inherit_seed {
	const struct aggregate *parent; /* the parent's aggregation at the fork,
	                                 * or NULL: the blocks are unknown */
	uint64_t fork_seq, fork_time_ns; /* with parent: the fork, in the
	                                 * parent's sequence and clock */
	int rc;                         /* without parent: 1 (note says why)
	                                 * or -ENOMEM */
	const char *note;               /* why inherited blocks are unknown
	                                 * (here or a generation up), or "" */
};

/*
 * Seeds agg (initialized, before any event) with the blocks the trace at
 * path inherited at fork: from seed (inherit_each's), or with seed NULL by
 * reading the parent's trace up to the fork when the trace is a fork
 * child.  Writes in note (note_bytes) why they are unknown, if they are.
 * Returns 0 (also for no fork child), 1 when the blocks are unknown (note
 * written), or -ENOMEM.
 */
int inherit_seed(const char *path, const struct inherit_seed *seed, struct aggregate *agg,
		 char *note, size_t note_bytes);

/* Told about paths[index]; returns 0, or a negative errno to stop. */
typedef int (*inherit_each_fn)(void *ctx, size_t index, const struct inherit_seed *seed);

/*
 * Calls fn once for each of paths[0..n): with the seed of a fork child
 * whose parent's trace is found, else with NULL (inherit_seed then finds
 * out itself).  The children of one parent come one after another, in
 * fork order, where the first of them stands; the parent is read once for
 * them all (again from the start only after an event that came late, in
 * a damaged trace), and each seed is valid during its call only.  Memory:
 * the parent's live blocks at the fork beside fn's own.  Returns 0, or
 * fn's negative errno (fn not called again).
 */
int inherit_each(char *const *paths, size_t n, inherit_each_fn fn, void *ctx);

#endif
