/*
 * analyze/slot_decoder.h - decoding EVENTS chunks with the per-slot delta
 * state they depend on (mprof-trace(5): a chunk at lap offset 0 starts fresh,
 * a later chunk continues the previous chunk of the same slot and lap).
 *
 * Owns one small state per thread slot; chunks that continue a lap whose
 * earlier part was lost (corrupt chunk) are refused with -EBADMSG so the
 * caller can count them as lost rather than decode garbage.
 */
#ifndef MPROF_ANALYZE_SLOT_DECODER_H
#define MPROF_ANALYZE_SLOT_DECODER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trace/record.h"

struct slot_state {
	bool valid;             /* state matches the next expected chunk */
	uint64_t lap;
	uint64_t next_offset;   /* lap offset the next chunk must start at */
	uint64_t tid;           /* thread that owns the slot now (THREAD records) */
	struct record_state st;
};

struct slot_decoders {
	struct slot_state **slots; /* indexed by slot number, owned; each state is
	                            * allocated once so cursors may keep pointers
	                            * to it while other slots are added */
	size_t count;
};

/* A cursor over the records of one EVENTS chunk. */
struct chunk_cursor {
	uint64_t slot;
	struct slot_state *state;
	const uint8_t *start;   /* first record byte */
	const uint8_t *p;
	const uint8_t *end;
	uint64_t base_offset;   /* lap offset of start */
};

void slot_decoders_init(struct slot_decoders *d);
void slot_decoders_free(struct slot_decoders *d);

/*
 * Parses the EVENTS chunk header in data[0..bytes) and positions cur on its
 * first record.  Returns 0, -EBADMSG for a malformed header or a chunk that
 * continues lost data, -ENOMEM.
 */
int slot_decoders_begin(struct slot_decoders *d, const uint8_t *data, size_t bytes,
			struct chunk_cursor *cur);

/*
 * Decodes the next record: returns RECORD_OK with *ev filled (THREAD records
 * also update cur->state->tid), RECORD_END at the end of the chunk (the slot
 * state then expects the following chunk), or a negative enum record_status
 * (the rest of the chunk and of its lap is then unreadable).
 */
static inline int chunk_cursor_next(struct chunk_cursor *cur, struct trace_event *ev)
{
	int rc = record_decode(&cur->p, cur->end, &cur->state->st, ev);

	if (rc == RECORD_OK) {
		if (ev->type == TRACE_EV_THREAD)
			cur->state->tid = ev->tid;
		return rc;
	}
	if (rc == RECORD_END) {
		cur->state->next_offset = cur->base_offset + (uint64_t)(cur->end - cur->start);
		return rc;
	}
	cur->state->valid = false;
	return rc;
}

#endif
