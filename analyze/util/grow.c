/*
 * analyze/util/grow.c - grow_zeroed (analyze/grow.h).  Owns nothing.
 */
#include <stdlib.h>
#include <string.h>

#include "analyze/util/grow.h"

/* From this size on a grown array is a fresh calloc, whose pages the C
 * library maps zeroed and nobody touches until used, instead of realloc
 * and a memset that made the whole doubled array resident (a trace of
 * 2.4 M stack nodes: 128 MiB resident for 39 MiB of nodes). */
#define GROW_FRESH_MIN_BYTES ((size_t)1 << 20)

void *grow_zeroed(void *v, size_t *count, size_t index, size_t elem_bytes, size_t first_count)
{
	size_t n = *count ? *count : first_count;
	char *grown;

	if (index < *count)
		return v;
	while (n <= index)
		n *= 2;
	if (n * elem_bytes >= GROW_FRESH_MIN_BYTES) {
		grown = calloc(n, elem_bytes);
		if (!grown)
			return NULL;
		if (*count)
			memcpy(grown, v, *count * elem_bytes);
		free(v);
		*count = n;
		return grown;
	}
	grown = realloc(v, n * elem_bytes);
	if (!grown)
		return NULL;
	memset(grown + *count * elem_bytes, 0, (n - *count) * elem_bytes);
	*count = n;
	return grown;
}
