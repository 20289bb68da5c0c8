/*
 * analyze/grow.c - grow_zeroed (analyze/grow.h).  Owns nothing.
 */
#include <stdlib.h>
#include <string.h>

#include "analyze/grow.h"

void *grow_zeroed(void *v, size_t *count, size_t index, size_t elem_bytes, size_t first_count)
{
	size_t n = *count ? *count : first_count;
	char *grown;

	if (index < *count)
		return v;
	while (n <= index)
		n *= 2;
	grown = realloc(v, n * elem_bytes);
	if (!grown)
		return NULL;
	memset(grown + *count * elem_bytes, 0, (n - *count) * elem_bytes);
	*count = n;
	return grown;
}
