/*
 * analyze/read/slot_index.c - slot numbers to dense indexes
 * (analyze/read/slot_index.h): a two-level table, its pages made on demand.
 *
 * Owns the page table and its pages; never grows with events, only with
 * the pages of slot numbers seen.
 */
#include <errno.h>
#include <stdlib.h>

#include "analyze/read/slot_index.h"

#define SLOT_INDEX_PAGES (SLOT_INDEX_MAX / SLOT_INDEX_PAGE)

void slot_index_init(struct slot_index *x)
{
	x->pages = NULL;
	x->count = 0;
}

int slot_index_get(struct slot_index *x, uint64_t slot, uint32_t *index)
{
	uint32_t **page;

	if (slot >= SLOT_INDEX_MAX)
		return -EINVAL;
	if (!x->pages) {
		x->pages = calloc(SLOT_INDEX_PAGES, sizeof(*x->pages));
		if (!x->pages)
			return -ENOMEM;
	}
	page = &x->pages[slot >> SLOT_INDEX_PAGE_BITS];
	if (!*page) {
		*page = calloc(SLOT_INDEX_PAGE, sizeof(**page));
		if (!*page)
			return -ENOMEM;
	}
	if (!(*page)[slot & (SLOT_INDEX_PAGE - 1)])
		(*page)[slot & (SLOT_INDEX_PAGE - 1)] = ++x->count;
	*index = (*page)[slot & (SLOT_INDEX_PAGE - 1)] - 1;
	return 0;
}

void slot_index_free(struct slot_index *x)
{
	if (x->pages)
		for (size_t i = 0; i < SLOT_INDEX_PAGES; i++)
			free(x->pages[i]);
	free(x->pages);
	slot_index_init(x);
}
