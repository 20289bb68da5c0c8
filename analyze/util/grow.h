/*
 * analyze/util/grow.h - growing the analyzer's tables that are indexed directly
 * by an id, a slot or a source number.
 */
#ifndef MPROF_ANALYZE_GROW_H
#define MPROF_ANALYZE_GROW_H

#include <stddef.h>

/*
 * Returns array v (of *count elements of elem_bytes, possibly NULL) grown
 * so that index is in it: the count doubles from first_count until it
 * exceeds index, and the new elements are zero.  *count is updated.  On
 * out of memory returns NULL and leaves v and *count as they were.  The
 * caller bounds index (the tables' own limits keep n * elem_bytes small).
 */
void *grow_zeroed(void *v, size_t *count, size_t index, size_t elem_bytes, size_t first_count);

/* A zeroed array indexed by id that may grow to tens of MiB: on the heap
 * while under 64 KiB, then a mapping of its own
 * (huge_array.h) that grows in place, without a copy held beside the old
 * array, and whose memory goes back to the system when freed. */
struct grow_big {
	void *p;          /* the elements; NULL while count is 0; owned */
	size_t count;     /* elements, all zero past those written */
	size_t reserved;  /* the mapping's reservation in bytes; 0: on the heap */
};

/* Grows g (elements of elem_bytes) as grow_zeroed does so that index is
 * in it.  Returns 0, or -ENOMEM with g unchanged.  The caller bounds
 * index. */
int grow_big_to(struct grow_big *g, size_t index, size_t elem_bytes, size_t first_count);

/* Frees g's elements and empties it. */
void grow_big_free(struct grow_big *g);

#endif
