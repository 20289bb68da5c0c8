/*
 * analyze/util/grow.c - grow_zeroed and grow_big (analyze/util/grow.h).  Owns
 * nothing but what a grow_big holds.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/util/grow.h"
#include "analyze/util/huge_array.h"

/* From this size on a grown array is a fresh calloc, whose pages the C
 * library maps zeroed and nobody touches until used, instead of realloc
 * and a memset that made the whole doubled array resident (a trace of
 * 2.4 M stack nodes: 128 MiB resident for 39 MiB of nodes). */
#define GROW_FRESH_MIN_BYTES ((size_t)1 << 20)

/* From this size on a grow_big is a mapping of its own: grown on the heap
 * to 2 MiB, the records and stack nodes of 262,145 stacks left 2.8 MiB of
 * freed heap resident through reading's high-water. */
#define GROW_BIG_MAPPED_MIN ((size_t)64 << 10)

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

int grow_big_to(struct grow_big *g, size_t index, size_t elem_bytes, size_t first_count)
{
	size_t n = g->count ? g->count : first_count, reserved;
	void *v;

	if (index < g->count)
		return 0;
	while (n <= index)
		n *= 2;
	if (!g->reserved && n * elem_bytes < GROW_BIG_MAPPED_MIN) {
		v = grow_zeroed(g->p, &g->count, index, elem_bytes, first_count);
		if (!v)
			return -ENOMEM;
		g->p = v;
		return 0;
	}
	if (g->reserved) {
		reserved = g->reserved;
		v = huge_array_grow(g->p, g->count * elem_bytes, n * elem_bytes, &reserved);
		g->reserved = reserved;
		if (!v)
			return -ENOMEM;
	} else {
		v = huge_array_alloc(n * elem_bytes, &reserved);
		if (!v)
			return -ENOMEM;
		if (g->count)
			memcpy(v, g->p, g->count * elem_bytes);
		free(g->p);
		g->reserved = reserved;
	}
	g->p = v;
	g->count = n;
	return 0;
}

void grow_big_free(struct grow_big *g)
{
	if (g->reserved)
		huge_array_free(g->p, g->reserved);
	else
		free(g->p);
	g->p = NULL;
	g->count = 0;
	g->reserved = 0;
}
