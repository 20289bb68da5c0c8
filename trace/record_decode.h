/*
 * trace/record_decode.h - the EVENTS record decoder's steps, forced inline
 * (RECORD_HOT): record.c makes record_decode and record_decode_split of
 * them, and the report's hot loop (analyze/read/slot_decoder.h) inlines
 * record_decode_inline itself.  Owns no memory; never allocates.
 */
#ifndef MPROF_TRACE_RECORD_DECODE_H
#define MPROF_TRACE_RECORD_DECODE_H

#include "trace/record.h"

/* The decoding steps below are forced inline (RECORD_HOT), into
 * record_decode: called, they cost the report a quarter of the decoder's
 * instructions (callgrind, sqlite3's trace: 258 -> 197 per event). */

/* A seq+ field: from the records, or from the seq column of a split
 * payload (cols not NULL).  Inlined with cols constant, the plain decoder
 * pays nothing for the split one. */
RECORD_HOT int record_field_seq(const uint8_t **p, const uint8_t *end, struct record_columns *cols,
		       uint64_t *dseq)
{
	if (cols)
		return varint_get_u64(&cols->seq, cols->seq_end, dseq);
	return varint_get_u64(p, end, dseq);
}

/* An addr~ field: from the records, or from the addr column (in units of
 * its address granule). */
RECORD_HOT int record_field_addr(const uint8_t **p, const uint8_t *end, struct record_columns *cols,
			int64_t *delta)
{
	if (cols) {
		int64_t granules;

		if (varint_get_s64(&cols->addr, cols->addr_end, &granules) < 0)
			return -1;
		*delta = (int64_t)((uint64_t)granules << cols->addr_shift);
		cols->addr_plain_bytes += varint_len_u64(varint_zigzag(*delta));
		return 0;
	}
	return varint_get_s64(p, end, delta);
}

/* Raw fields of a block reference, read before any state changes so that a
 * record cut short leaves the state as it was. */
struct record_raw_ref {
	uint64_t code;     /* fref or aref */
	int64_t delta;     /* addr~ when explicit */
};

RECORD_HOT int record_field_free_ref(const uint8_t **p, const uint8_t *end,
				     struct record_columns *cols, struct record_raw_ref *r)
{
	r->delta = 0;
	if (varint_get_u64(p, end, &r->code) < 0)
		return -1;
	if (r->code > RECORD_FREF_MAX)
		return -2;
	if (record_fref_explicit(r->code) && record_field_addr(p, end, cols, &r->delta) < 0)
		return -1;
	return 0;
}

RECORD_HOT int record_field_new_block(const uint8_t **p, const uint8_t *end,
				      struct record_columns *cols, struct record_raw_ref *r,
				      uint64_t *size_bytes, int64_t *stack_delta)
{
	r->delta = 0;
	if (varint_get_u64(p, end, &r->code) < 0)
		return -1;
	if (r->code > RECORD_AREF_MAX)
		return -2;
	if (r->code == RECORD_AREF_EXPLICIT && record_field_addr(p, end, cols, &r->delta) < 0)
		return -1;
	if (varint_get_u64(p, end, size_bytes) < 0 || varint_get_s64(p, end, stack_delta) < 0)
		return -1;
	return 0;
}

/* Applies a free reference; -1 when it names an MRU entry that is not there
 * (a corrupt record).  *recent tells whether it named an MRU entry, *tag
 * that entry's tag then. */
RECORD_HOT int record_apply_free_ref(struct record_state *st, const struct record_raw_ref *r,
				     uint64_t *addr, bool *recent, uint64_t *tag)
{
	uint32_t i;

	*recent = !record_fref_explicit(r->code);
	if (!*recent) {
		st->addr += (uint64_t)r->delta;
		*addr = st->addr;
		if (r->code)
			record_lifo_push(st, (int)(r->code - RECORD_FREF_CLASSED), *addr);
		return 0;
	}
	i = record_fref_mru_index(r->code);
	if (i >= st->mru_count)
		return -1;
	*addr = record_mru_at(st, i)->addr;
	*tag = record_mru_at(st, i)->tag;
	record_mru_release(st, i);
	return 0;
}

/* Takes the freed block k places below the newest of size class c (k = 0:
 * the newest) out of its list into *addr; -1 when the list has no such
 * block (a corrupt record). */
RECORD_HOT int record_lifo_ref(struct record_state *st, int c, uint64_t k, uint64_t *addr)
{
	if (c < 0 || st->lifo_count[c] <= k)
		return -1;
	*addr = record_lifo_take(st, c, (uint32_t)k);
	return 0;
}

RECORD_HOT int record_apply_new_block(struct record_state *st, const struct record_raw_ref *r,
			       uint64_t size_bytes, int64_t stack_delta, uint64_t *addr,
			       uint64_t *stack_id)
{
	int c = record_size_class(size_bytes);

	switch (r->code) {
	case RECORD_AREF_LIFO:
		if (record_lifo_ref(st, c, 0, addr) < 0)
			return -1;
		break;
	case RECORD_AREF_CARVE:
		*addr = st->carve;
		break;
	case RECORD_AREF_EXPLICIT:
		st->addr += (uint64_t)r->delta;
		*addr = st->addr;
		break;
	case RECORD_AREF_FRESH:
		*addr = st->fresh;
		break;
	default: /* RECORD_AREF_DEEP + k - 1 */
		if (record_lifo_ref(st, c, r->code - RECORD_AREF_DEEP + 1, addr) < 0)
			return -1;
	}
	st->stack += (uint64_t)stack_delta;
	*stack_id = st->stack;
	record_note_alloc(st, r->code, *addr, size_bytes);
	return 0;
}

/* Reads the weight of a weighted kind (else 1). */
RECORD_HOT int record_field_weight(const uint8_t **p, const uint8_t *end, unsigned kind,
				   uint64_t *weight)
{
	unsigned base = kind & 0xf0;

	*weight = 1;
	if (base == TRACE_REC_ALLOC_WEIGHTED || base == TRACE_REC_REALLOC_WEIGHTED)
		return varint_get_u64(p, end, weight);
	return 0;
}

RECORD_HOT int record_decode_alloc(const uint8_t **p, const uint8_t *end,
				   struct record_columns *cols, struct record_state *st,
				   struct trace_event *ev)
{
	uint64_t dseq;
	struct record_raw_ref r;
	int64_t dstack;
	int rc;

	if (ev->fn > TRACE_FN_POOL)
		return RECORD_UNKNOWN;
	ev->type = TRACE_EV_ALLOC;
	if (record_field_seq(p, end, cols, &dseq) < 0)
		return RECORD_TRUNCATED;
	rc = record_field_new_block(p, end, cols, &r, &ev->size_bytes, &dstack);
	if (rc == 0 && record_field_weight(p, end, ev->kind, &ev->weight) < 0)
		rc = -1;
	if (rc < 0)
		return rc == -1 ? RECORD_TRUNCATED : RECORD_CORRUPT;
	st->seq += dseq;
	ev->seq = st->seq;
	return record_apply_new_block(st, &r, ev->size_bytes, dstack, &ev->addr, &ev->stack_id) < 0
		       ? RECORD_CORRUPT : RECORD_OK;
}

RECORD_HOT int record_decode_free(const uint8_t **p, const uint8_t *end,
				  struct record_columns *cols, struct record_state *st,
				  struct trace_event *ev)
{
	uint64_t dseq;
	struct record_raw_ref r;
	int rc;

	if (ev->fn > TRACE_FREE_REALLOC_RELEASE)
		return RECORD_UNKNOWN;
	ev->type = TRACE_EV_FREE;
	if (record_field_seq(p, end, cols, &dseq) < 0)
		return RECORD_TRUNCATED;
	rc = record_field_free_ref(p, end, cols, &r);
	if (rc < 0)
		return rc == -1 ? RECORD_TRUNCATED : RECORD_CORRUPT;
	st->seq += dseq;
	ev->seq = st->seq;
	return record_apply_free_ref(st, &r, &ev->addr, &ev->freed_recent, &ev->freed_tag) < 0
		       ? RECORD_CORRUPT
		       : RECORD_OK;
}

static __attribute__((noinline, unused)) int
record_decode_realloc(const uint8_t **p, const uint8_t *end, struct record_columns *cols,
		      struct record_state *st, struct trace_event *ev)
{
	uint64_t dseq1, dseq2 = 0;
	struct record_raw_ref fr, ar;
	int64_t dstack;
	int rc;

	if (ev->fn > TRACE_FN_POOL)
		return RECORD_UNKNOWN;
	ev->type = TRACE_EV_REALLOC;
	if (record_field_seq(p, end, cols, &dseq1) < 0)
		return RECORD_TRUNCATED;
	rc = record_field_free_ref(p, end, cols, &fr);
	if (rc == 0 && record_field_seq(p, end, cols, &dseq2) < 0)
		rc = -1;
	if (rc == 0)
		rc = record_field_new_block(p, end, cols, &ar, &ev->size_bytes, &dstack);
	if (rc == 0 && record_field_weight(p, end, ev->kind, &ev->weight) < 0)
		rc = -1;
	if (rc < 0)
		return rc == -1 ? RECORD_TRUNCATED : RECORD_CORRUPT;
	st->seq += dseq1;
	ev->seq = st->seq;
	if (record_apply_free_ref(st, &fr, &ev->addr, &ev->freed_recent, &ev->freed_tag) < 0)
		return RECORD_CORRUPT;
	st->seq += dseq2;
	ev->seq2 = st->seq;
	return record_apply_new_block(st, &ar, ev->size_bytes, dstack, &ev->addr2,
				      &ev->stack_id) < 0
		       ? RECORD_CORRUPT
		       : RECORD_OK;
}

RECORD_HOT int record_decode_body(const uint8_t **p, const uint8_t *end,
				  struct record_columns *cols, struct record_state *st,
				  struct trace_event *ev)
{
	unsigned kind = ev->kind;
	int64_t d;

	if (kind >= 0x80) {
		uint64_t len;

		ev->type = TRACE_EV_EXT;
		if (varint_get_u64(p, end, &len) < 0 || len > (uint64_t)(end - *p))
			return RECORD_TRUNCATED;
		ev->ext = *p;
		ev->ext_len = (size_t)len;
		*p += len;
		return RECORD_OK;
	}
	switch (kind & 0xf0) {
	case TRACE_REC_ALLOC:
	case TRACE_REC_ALLOC_WEIGHTED:
		return record_decode_alloc(p, end, cols, st, ev);
	case TRACE_REC_FREE:
		return record_decode_free(p, end, cols, st, ev);
	case TRACE_REC_REALLOC:
	case TRACE_REC_REALLOC_WEIGHTED:
		return record_decode_realloc(p, end, cols, st, ev);
	}
	switch (kind) {
	case TRACE_REC_SEQ_SKIP: {
		uint64_t dseq;

		ev->type = TRACE_EV_SEQ_SKIP;
		if (record_field_seq(p, end, cols, &dseq) < 0)
			return RECORD_TRUNCATED;
		st->seq += dseq;
		ev->seq = st->seq;
		return RECORD_OK;
	}
	case TRACE_REC_THREAD:
		ev->type = TRACE_EV_THREAD;
		if (varint_get_u64(p, end, &ev->tid) < 0)
			return RECORD_TRUNCATED;
		record_state_reset_used(st); /* st was zeroed once (record_decode) */
		return RECORD_OK;
	case TRACE_REC_TIME:
		ev->type = TRACE_EV_TIME;
		ev->seq = st->seq;
		return varint_get_u64(p, end, &ev->time_ns) < 0 ? RECORD_TRUNCATED : RECORD_OK;
	case TRACE_REC_STACK:
		ev->type = TRACE_EV_STACK;
		if (varint_get_u64(p, end, &ev->stack_id) < 0 ||
		    varint_get_u64(p, end, &ev->parent) < 0 || varint_get_s64(p, end, &d) < 0)
			return RECORD_TRUNCATED;
		st->stack_node = ev->stack_id;
		st->stack_ip += (uint64_t)d;
		ev->ip = st->stack_ip;
		return RECORD_OK;
	case TRACE_REC_STACK_DELTA: {
		int64_t did, dparent;

		ev->type = TRACE_EV_STACK;
		if (varint_get_s64(p, end, &did) < 0 || varint_get_s64(p, end, &dparent) < 0 ||
		    varint_get_s64(p, end, &d) < 0)
			return RECORD_TRUNCATED;
		st->stack_node += (uint64_t)did + 1;
		ev->stack_id = st->stack_node;
		ev->parent = ev->stack_id - (uint64_t)dparent;
		st->stack_ip += (uint64_t)d;
		ev->ip = st->stack_ip;
		return RECORD_OK;
	}
	}
	return RECORD_UNKNOWN;
}

/* Decodes one record as record_decode (cols NULL: a plain payload) or
 * record_decode_split (cols: a split payload's columns) does, with the
 * same returns; inline, for a caller's loop over many records. */
RECORD_HOT int record_decode_inline(const uint8_t **pp, const uint8_t *end,
				    struct record_columns *cols, struct record_state *st,
				    struct trace_event *ev)
{
	const uint8_t *p = *pp;
	int rc;

	while (p < end && *p == TRACE_REC_PAD)
		p++;
	if (p == end) {
		*pp = p;
		return RECORD_END;
	}
	/* no memset of the whole event: 24 of ~170 instructions per record */
	ev->seq = ev->seq2 = 0;
	ev->kind = *p;
	ev->fn = *p & 0x0f;
	*pp = p;
	p++;
	rc = record_decode_body(&p, end, cols, st, ev);
	if (rc != RECORD_OK)
		return rc;
	*pp = p;
	return RECORD_OK;
}

#endif
