/*
 * trace/record.c - decoder of EVENTS records (the encoders are inline in
 * record.h).  Owns no memory; never allocates.
 */
#include <string.h>

#include "trace/record.h"

uint8_t *record_put_bytes(uint8_t *p, const void *data, size_t len)
{
	p = varint_put_u64(p, len);
	memcpy(p, data, len);
	return p + len;
}

int record_get_u64(const uint8_t **pp, const uint8_t *end, uint64_t *out)
{
	return varint_get_u64(pp, end, out);
}

int record_get_bytes(const uint8_t **pp, const uint8_t *end, const uint8_t **data, size_t *len)
{
	const uint8_t *p = *pp;
	uint64_t n;

	if (varint_get_u64(&p, end, &n) < 0 || n > (uint64_t)(end - p))
		return -1;
	*data = p;
	*len = (size_t)n;
	*pp = p + n;
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

static int get_addr(const uint8_t **p, const uint8_t *end, struct record_state *st, uint64_t *addr)
{
	int64_t d;

	if (varint_get_s64(p, end, &d) < 0)
		return -1;
	st->addr += (uint64_t)d;
	*addr = st->addr;
	return 0;
}

static int decode_alloc_tail(const uint8_t **p, const uint8_t *end, struct trace_event *ev)
{
	if (varint_get_u64(p, end, &ev->size_bytes) < 0 ||
	    varint_get_u64(p, end, &ev->stack_id) < 0 ||
	    varint_get_u64(p, end, &ev->weight) < 0)
		return -1;
	return 0;
}

static int decode_body(const uint8_t **p, const uint8_t *end, struct record_state *st,
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
		if (ev->fn >= TRACE_FN_ALLOC_COUNT)
			return RECORD_UNKNOWN;
		ev->type = TRACE_EV_ALLOC;
		if (get_seq(p, end, st, &ev->seq) < 0 || get_addr(p, end, st, &ev->addr) < 0 ||
		    decode_alloc_tail(p, end, ev) < 0)
			return RECORD_TRUNCATED;
		return RECORD_OK;
	case TRACE_REC_FREE:
		if (ev->fn >= TRACE_FREE_FN_COUNT)
			return RECORD_UNKNOWN;
		ev->type = TRACE_EV_FREE;
		if (get_seq(p, end, st, &ev->seq) < 0 || get_addr(p, end, st, &ev->addr) < 0)
			return RECORD_TRUNCATED;
		return RECORD_OK;
	case TRACE_REC_REALLOC:
		if (ev->fn >= TRACE_FN_ALLOC_COUNT)
			return RECORD_UNKNOWN;
		ev->type = TRACE_EV_REALLOC;
		if (get_seq(p, end, st, &ev->seq) < 0 || get_addr(p, end, st, &ev->addr) < 0 ||
		    get_seq(p, end, st, &ev->seq2) < 0 || get_addr(p, end, st, &ev->addr2) < 0 ||
		    decode_alloc_tail(p, end, ev) < 0)
			return RECORD_TRUNCATED;
		return RECORD_OK;
	}
	switch (kind) {
	case TRACE_REC_SEQ_SKIP:
		ev->type = TRACE_EV_SEQ_SKIP;
		return get_seq(p, end, st, &ev->seq) < 0 ? RECORD_TRUNCATED : RECORD_OK;
	case TRACE_REC_THREAD:
		ev->type = TRACE_EV_THREAD;
		record_state_reset(st);
		return varint_get_u64(p, end, &ev->tid) < 0 ? RECORD_TRUNCATED : RECORD_OK;
	case TRACE_REC_TIME:
		ev->type = TRACE_EV_TIME;
		ev->seq = st->seq;
		return varint_get_u64(p, end, &ev->time_ns) < 0 ? RECORD_TRUNCATED : RECORD_OK;
	case TRACE_REC_STACK:
		ev->type = TRACE_EV_STACK;
		if (varint_get_u64(p, end, &ev->stack_id) < 0 ||
		    varint_get_u64(p, end, &ev->parent) < 0 || varint_get_s64(p, end, &d) < 0)
			return RECORD_TRUNCATED;
		st->stack_ip += (uint64_t)d;
		ev->ip = st->stack_ip;
		return RECORD_OK;
	}
	return RECORD_UNKNOWN;
}

int record_decode(const uint8_t **pp, const uint8_t *end, struct record_state *st,
		  struct trace_event *ev)
{
	const uint8_t *p = *pp;
	struct record_state saved = *st;
	int rc;

	while (p < end && *p == TRACE_REC_PAD)
		p++;
	if (p == end) {
		*pp = p;
		return RECORD_END;
	}
	memset(ev, 0, sizeof(*ev));
	ev->kind = *p;
	ev->fn = *p & 0x0f;
	*pp = p;
	p++;
	rc = decode_body(&p, end, st, ev);
	if (rc != RECORD_OK) {
		*st = saved;
		return rc;
	}
	*pp = p;
	return RECORD_OK;
}
