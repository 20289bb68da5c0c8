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

#endif
