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

void slot_decoders_init(struct slot_decoders *d)
{
	d->slots = NULL;
	d->count = 0;
	d->generation = 0;
}

void slot_decoders_restart(struct slot_decoders *d)
{
	d->generation++;
}

/* s as a fresh calloc'd state of generation g, its starts buffer kept (its
 * record state is reset where a lap starts, the only chunk a state that is
 * not valid takes: slot_decoders_begin). */
static void slot_state_clear(struct slot_state *s, uint64_t g)
{
	s->valid = false;
	s->lap = s->next_offset = s->tid = 0;
	s->started = false;
	s->starts_lap = 0;
	s->start_count = 0;
	s->generation = g;
}

void slot_decoders_free(struct slot_decoders *d)
{
	for (size_t i = 0; i < d->count; i++) {
		if (d->slots[i])
			free(d->slots[i]->starts);
		free(d->slots[i]);
	}
	free(d->slots);
	slot_decoders_init(d);
}

static struct slot_state *slot_get(struct slot_decoders *d, uint64_t slot)
{
	if (slot >= SLOT_DECODER_MAX_SLOTS)
		return NULL;
	if (slot >= d->count) {
		struct slot_state **v = grow_zeroed(d->slots, &d->count, (size_t)slot, sizeof(*v),
						    16);

		if (!v)
			return NULL;
		d->slots = v;
	}
	if (!d->slots[slot]) {
		d->slots[slot] = calloc(1, sizeof(struct slot_state));
		if (d->slots[slot])
			d->slots[slot]->generation = d->generation;
	} else if (d->slots[slot]->generation != d->generation) {
		slot_state_clear(d->slots[slot], d->generation);
	}
	return d->slots[slot];
}

/* Whether a chunk of the slot at lap offset offset of lap was begun
 * already: a slot's chunks come in ring order, so an earlier lap or a
 * start seen is the trace repeating itself (two traces joined, a chunk
 * written twice).  A lap's offsets need not rise by the chunks' lengths
 * (a stretch passed through at its ring offset after compact ones), so
 * only a start seen counts. */
static bool slot_start_seen(const struct slot_state *s, uint64_t lap, uint64_t offset)
{
	size_t lo = 0, hi = s->start_count;

	if (!s->started || lap > s->starts_lap)
		return false;
	if (lap < s->starts_lap)
		return true;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->starts[mid] == offset)
			return true;
		if (s->starts[mid] < offset)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/* Notes a chunk begun at offset of lap (not seen: slot_start_seen).
 * Returns 0 or -ENOMEM. */
static int slot_start_add(struct slot_state *s, uint64_t lap, uint64_t offset)
{
	if (!s->started || lap != s->starts_lap) {
		s->started = true;
		s->starts_lap = lap;
		s->start_count = 0;
	}
	if (s->start_count && offset < s->starts[s->start_count - 1])
		return 0; /* out of order: the lap is damaged, a repeat of it not told */
	if (s->start_count == s->start_cap) {
		size_t cap = s->start_cap ? 2 * s->start_cap : 16;
		uint64_t *v = realloc(s->starts, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->starts = v;
		s->start_cap = cap;
	}
	s->starts[s->start_count++] = offset;
	return 0;
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
		return slot >= SLOT_DECODER_MAX_SLOTS ? -EPROTO : -ENOMEM;
	if (slot_start_seen(s, lap, offset))
		return -EEXIST;
	if (slot_start_add(s, lap, offset) < 0)
		return -ENOMEM;
	if (offset == 0) {
		s->valid = true;
		s->lap = lap;
		/* calloc'd, then changed by the decoder only (record_decode) */
		record_state_reset_used(&s->st);
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
