/*
 * trace/recode.c - re-encoding a slot's records into the compact form
 * (recode.h).  Owns no memory; never allocates.
 */
#include <string.h>

#include "trace/recode.h"
#include "trace/varint.h"

/* A reference field: u aref or fref, then addr~ when explicit.  Sets
 * *code and, when an address follows, *addr (from st->addr); returns -1 for
 * input this reader does not take (cut off, or a reference to history: the
 * shim writes none). */
static int get_explicit(const uint8_t **p, const uint8_t *end, struct record_state *st,
			bool free_ref, uint64_t *code, uint64_t *addr)
{
	int64_t delta;

	if (varint_get_u64(p, end, code) < 0)
		return -1;
	if (free_ref ? (*code != 0 && (*code < RECORD_FREF_CLASSED || *code > RECORD_FREF_MAX))
		     : *code != RECORD_AREF_EXPLICIT)
		return -1;
	if (varint_get_s64(p, end, &delta) < 0)
		return -1;
	st->addr += (uint64_t)delta;
	*addr = st->addr;
	return 0;
}

static int get_seq(const uint8_t **p, const uint8_t *end, struct record_state *st, uint64_t *seq)
{
	uint64_t d;

	if (varint_get_u64(p, end, &d) < 0)
		return -1;
	st->seq += d;
	*seq = st->seq;
	return 0;
}

/* The new block of an explicit ALLOC or REALLOC: addr~ (after aref), u size,
 * s stack~, then u weight for the weighted kinds. */
static int get_new_block(const uint8_t **p, const uint8_t *end, struct record_state *st,
			 bool weighted, uint64_t *addr, uint64_t *size, uint64_t *stack,
			 uint64_t *weight)
{
	uint64_t code;
	int64_t dstack;

	if (get_explicit(p, end, st, false, &code, addr) < 0 || varint_get_u64(p, end, size) < 0 ||
	    varint_get_s64(p, end, &dstack) < 0)
		return -1;
	st->stack += (uint64_t)dstack;
	*stack = st->stack;
	*weight = 1;
	return weighted ? varint_get_u64(p, end, weight) : 0;
}

/* The freed block of an explicit FREE or REALLOC, as a lookup in out's
 * history with the class the shim read from the chunk header. */
static int get_free_ref(const uint8_t **p, const uint8_t *end, struct record_state *in,
			struct record_state *out, uint64_t *addr, struct record_free_ref *ref)
{
	uint64_t code;

	if (get_explicit(p, end, in, true, &code, addr) < 0)
		return -1;
	*ref = record_free_lookup(out, *addr);
	ref->size_class = code ? (int)(code - RECORD_FREF_CLASSED) : -1;
	return 0;
}

/*
 * Re-encodes the record at *pp (the shim's form: references explicit) into
 * w, advancing *pp; returns the end of what it wrote, or NULL when the
 * record is not one this reader takes (then *pp is unspecified).  in holds
 * the shim's delta bases (seq, addr, stack, stack node), out the compact
 * stream's whole state.
 */
static uint8_t *recode_one(const uint8_t **pp, const uint8_t *end, struct record_state *in,
			   struct record_state *out, uint8_t *w)
{
	const uint8_t *p = *pp;
	unsigned kind = *p++, fn = kind & 0x0f;
	uint64_t seq, seq2, addr, addr2, size, stack, weight, v;
	int64_t d1, d2, d3;
	struct record_free_ref ref;

	switch (kind & 0xf0) {
	case TRACE_REC_ALLOC:
	case TRACE_REC_ALLOC_WEIGHTED:
		if (fn >= TRACE_FN_ALLOC_COUNT || get_seq(&p, end, in, &seq) < 0 ||
		    get_new_block(&p, end, in, (kind & 0xf0) == TRACE_REC_ALLOC_WEIGHTED, &addr,
				  &size, &stack, &weight) < 0)
			return NULL;
		w = record_put_alloc(w, out, fn, seq, addr, size, stack, weight);
		break;
	case TRACE_REC_FREE:
		if (fn >= TRACE_FREE_FN_COUNT || get_seq(&p, end, in, &seq) < 0 ||
		    get_free_ref(&p, end, in, out, &addr, &ref) < 0)
			return NULL;
		w = record_put_free(w, out, fn, seq, addr, &ref);
		break;
	case TRACE_REC_REALLOC:
	case TRACE_REC_REALLOC_WEIGHTED:
		if (fn >= TRACE_FN_ALLOC_COUNT || get_seq(&p, end, in, &seq) < 0 ||
		    get_free_ref(&p, end, in, out, &addr, &ref) < 0 ||
		    get_seq(&p, end, in, &seq2) < 0 ||
		    get_new_block(&p, end, in, (kind & 0xf0) == TRACE_REC_REALLOC_WEIGHTED, &addr2,
				  &size, &stack, &weight) < 0)
			return NULL;
		w = record_put_realloc(w, out, fn, seq, addr, &ref, seq2, addr2, size, stack,
				       weight);
		break;
	case 0x00:
		switch (kind) {
		case TRACE_REC_SEQ_SKIP:
			if (get_seq(&p, end, in, &seq) < 0)
				return NULL;
			w = record_put_seq_skip(w, out, seq);
			break;
		case TRACE_REC_THREAD:
			if (varint_get_u64(&p, end, &v) < 0)
				return NULL;
			record_state_reset(in);
			w = record_put_thread(w, out, v);
			break;
		case TRACE_REC_TIME:
			if (varint_get_u64(&p, end, &v) < 0)
				return NULL;
			w = record_put_time(w, v);
			break;
		case TRACE_REC_STACK_DELTA:
			if (varint_get_s64(&p, end, &d1) < 0 || varint_get_s64(&p, end, &d2) < 0 ||
			    varint_get_s64(&p, end, &d3) < 0)
				return NULL;
			v = in->stack_node + 1 + (uint64_t)d1;
			in->stack_node = v;
			in->stack_ip += (uint64_t)d3;
			w = record_put_stack(w, out, v, v - (uint64_t)d2, in->stack_ip);
			break;
		default:
			return NULL;
		}
		break;
	default:
		if (kind < 0x80 || varint_get_u64(&p, end, &v) < 0 || v > (uint64_t)(end - p))
			return NULL;
		/* an extended record: as it is */
		p += v;
		memcpy(w, *pp, (size_t)(p - *pp));
		w += p - *pp;
		break;
	}
	*pp = p;
	return w;
}

size_t record_recode(struct record_recoder *rc, uint64_t lap, uint64_t in_offset, bool pass_lap,
		     const uint8_t *in, size_t n, uint8_t *out, uint64_t *out_offset,
		     size_t *used)
{
	const uint8_t *p = in, *end = in + n;
	uint8_t *w = out;

	if (in_offset == 0) {
		record_state_reset(&rc->in);
		record_state_reset(&rc->out);
		rc->lap = lap;
		rc->out_offset = 0;
		rc->valid = !pass_lap;
	} else if (!rc->valid || rc->lap != lap || rc->in_next != in_offset) {
		rc->valid = false;
	}
	rc->in_next = in_offset + n;
	*used = n;
	if (!rc->valid) {
		memcpy(out, in, n);
		*out_offset = in_offset;
		return n;
	}
	*out_offset = rc->out_offset;
	while (p < end) {
		const uint8_t *rec = p;
		uint8_t *next;

		if (*p == TRACE_REC_PAD) { /* a lap's padding: the compact stream needs none */
			p++;
			continue;
		}
		next = recode_one(&p, end, &rc->in, &rc->out, w);
		if (!next) {
			/* what this reader does not take: the caller writes the
			 * rest apart (recode.h) */
			*used = (size_t)(rec - in);
			rc->valid = false;
			break;
		}
		w = next;
	}
	rc->out_offset += (uint64_t)(w - out);
	return (size_t)(w - out);
}
