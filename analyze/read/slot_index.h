/*
 * analyze/read/slot_index.h - dense numbers for the thread slots a trace's
 * EVENTS chunks name.
 *
 * A slot number is read from the trace (any value below SLOT_INDEX_MAX), so
 * the reader's per-slot tables must not be indexed by it: one chunk naming
 * slot 1001776 made them a million entries (318 MiB) for a trace of 2 KiB.
 * Slots get indexes 0, 1, 2... in the order they are first seen, and the
 * tables grow with the slots the trace holds, each of which took a chunk.
 */
#ifndef MPROF_ANALYZE_SLOT_INDEX_H
#define MPROF_ANALYZE_SLOT_INDEX_H

#include <stdint.h>

/* Slot numbers must be below this (the decoder's SLOT_DECODER_MAX_SLOTS). */
#define SLOT_INDEX_MAX (1u << 16)

/* Slot numbers by pages of SLOT_INDEX_PAGE entries, made when a slot in
 * them is first seen: 4 KiB per page in use, 256 KiB at most. */
#define SLOT_INDEX_PAGE_BITS 10
#define SLOT_INDEX_PAGE (1u << SLOT_INDEX_PAGE_BITS)

struct slot_index {
	uint32_t **pages; /* SLOT_INDEX_MAX / SLOT_INDEX_PAGE pointers, each
	                   * NULL or a page of index + 1 (0: not seen); owned */
	uint32_t count;   /* slots seen: the next index given */
};

/* An empty index (no memory held until a slot is looked up). */
void slot_index_init(struct slot_index *x);

/*
 * Sets *index to slot's dense index, giving it the next one when slot is
 * seen for the first time.  Returns 0, -EINVAL for slot >= SLOT_INDEX_MAX,
 * -ENOMEM (x unchanged).
 */
int slot_index_get(struct slot_index *x, uint64_t slot, uint32_t *index);

/* Frees x's pages and empties it. */
void slot_index_free(struct slot_index *x);

#endif
