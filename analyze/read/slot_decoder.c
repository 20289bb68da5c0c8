/*
 * analyze/read/slot_decoder.c - per-slot delta state for EVENTS chunks.
 * See slot_decoder.h.  Allocates only the slot array.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/util/grow.h"
#include "analyze/read/slot_decoder.h"
#include "trace/split.h"

/* More slots than any recorder makes (it makes at most SESSION_DEFAULT_SLOTS,
 * 4096); the bound keeps a hostile trace from costing gigabytes of decoder
 * state (~2.5 KiB a slot). */
#define SLOT_LIMIT (1u << 16)

void slot_decoders_init(struct slot_decoders *d)
{
	d->slots = NULL;
	d->count = 0;
}

void slot_decoders_free(struct slot_decoders *d)
{
	for (size_t i = 0; i < d->count; i++)
		free(d->slots[i]);
	free(d->slots);
	slot_decoders_init(d);
}

static struct slot_state *slot_get(struct slot_decoders *d, uint64_t slot)
{
	if (slot >= SLOT_LIMIT)
		return NULL;
	if (slot >= d->count) {
		struct slot_state **v = grow_zeroed(d->slots, &d->count, (size_t)slot, sizeof(*v),
						    16);

		if (!v)
			return NULL;
		d->slots = v;
	}
	if (!d->slots[slot])
		d->slots[slot] = calloc(1, sizeof(struct slot_state));
	return d->slots[slot];
}

/* Positions cur on the parts of the split payload whose part counts start
 * at p.  Returns 0 or -EPROTO when they do not fit. */
static int split_parts(const uint8_t *p, const uint8_t *end, unsigned addr_shift,
		       struct chunk_cursor *cur)
{
	struct trace_split_parts parts;

	if (trace_split_parts(p, end, addr_shift, &parts) < 0)
		return -EPROTO;
	cur->p = parts.records;
	cur->end = parts.seq;
	cur->cols.seq = parts.seq;
	cur->cols.seq_end = cur->cols.addr = parts.addr;
	cur->cols.addr_end = end;
	cur->cols.addr_shift = addr_shift;
	cur->cols.addr_plain_bytes = 0;
	cur->addr_plain_bytes = parts.plain_bytes - (uint64_t)(parts.addr - parts.records);
	cur->plain_bytes = parts.plain_bytes;
	return 0;
}

int slot_decoders_begin(struct slot_decoders *d, const uint8_t *data, size_t bytes, bool split,
			unsigned addr_shift, struct chunk_cursor *cur)
{
	const uint8_t *p = data, *end = data + bytes;
	uint64_t slot, lap, offset;
	struct slot_state *s;

	if (varint_get_u64(&p, end, &slot) < 0 || varint_get_u64(&p, end, &lap) < 0 ||
	    varint_get_u64(&p, end, &offset) < 0)
		return -EPROTO;
	cur->split = split;
	if (split) {
		if (split_parts(p, end, addr_shift, cur) < 0)
			return -EPROTO;
	} else {
		cur->p = p;
		cur->end = end;
		cur->plain_bytes = (uint64_t)(end - p);
	}
	s = slot_get(d, slot);
	if (!s)
		return slot >= SLOT_LIMIT ? -EPROTO : -ENOMEM;
	if (offset == 0) {
		s->valid = true;
		s->lap = lap;
		record_state_reset(&s->st);
	} else if (!s->valid || s->lap != lap || s->next_offset != offset) {
		s->valid = false;
		return -EBADMSG;
	}
	s->next_offset = offset;
	cur->slot = slot;
	cur->state = s;
	cur->base_offset = offset;
	return 0;
}
