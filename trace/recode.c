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
	if (free_ref ? !record_fref_explicit(*code) : *code != RECORD_AREF_EXPLICIT)
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

static inline void span_seq(struct record_span *sp, uint64_t seq)
{
	if (!sp->has_seq || seq < sp->seq_first)
		sp->seq_first = seq;
	if (!sp->has_seq || seq > sp->seq_last)
		sp->seq_last = seq;
	sp->has_seq = true;
}

static inline void span_time(struct record_span *sp, uint64_t ns)
{
	if (!sp->has_time)
		sp->time_first = ns;
	if (!sp->has_time || ns > sp->time_last)
		sp->time_last = ns;
	sp->has_time = true;
}

/*
 * Re-encodes the record at *pp (the shim's form: references explicit) into
 * w, advancing *pp; returns the end of what it wrote, or NULL when the
 * record is not one this reader takes (then *pp is unspecified).  in holds
 * the shim's delta bases (seq, addr, stack, stack node), out the compact
 * stream's whole state.
 */
static uint8_t *recode_one(const uint8_t **pp, const uint8_t *end, struct record_recoder *rc,
			   uint8_t *w)
{
	struct record_state *in = &rc->in, *out = &rc->out;
	struct record_counts *counts = &rc->counts;
	struct record_span *sp = &rc->span;
	const uint8_t *p = *pp;
	unsigned kind = *p++, fn = kind & 0x0f;
	uint64_t seq, seq2, addr, addr2, size, stack, weight, v;
	int64_t d1, d2, d3;
	struct record_free_ref ref;

	switch (kind & 0xf0) {
	case TRACE_REC_ALLOC:
	case TRACE_REC_ALLOC_WEIGHTED:
		if (fn > TRACE_FN_POOL || get_seq(&p, end, in, &seq) < 0 ||
		    get_new_block(&p, end, in, (kind & 0xf0) == TRACE_REC_ALLOC_WEIGHTED, &addr,
				  &size, &stack, &weight) < 0)
			return NULL;
		w = record_put_alloc(w, out, fn, seq, addr, size, stack, weight);
		counts->allocations += weight;
		counts->records++;
		span_seq(sp, seq);
		break;
	case TRACE_REC_FREE:
		if (fn > TRACE_FREE_REALLOC_RELEASE || get_seq(&p, end, in, &seq) < 0 ||
		    get_free_ref(&p, end, in, out, &addr, &ref) < 0)
			return NULL;
		w = record_put_free(w, out, fn, seq, addr, &ref);
		span_seq(sp, seq);
		break;
	case TRACE_REC_REALLOC:
	case TRACE_REC_REALLOC_WEIGHTED:
		if (fn > TRACE_FN_POOL || get_seq(&p, end, in, &seq) < 0 ||
		    get_free_ref(&p, end, in, out, &addr, &ref) < 0 ||
		    get_seq(&p, end, in, &seq2) < 0 ||
		    get_new_block(&p, end, in, (kind & 0xf0) == TRACE_REC_REALLOC_WEIGHTED, &addr2,
				  &size, &stack, &weight) < 0)
			return NULL;
		w = record_put_realloc(w, out, fn, seq, addr, &ref, seq2, addr2, size, stack,
				       weight);
		counts->allocations += weight;
		counts->records++;
		span_seq(sp, seq);
		span_seq(sp, seq2);
		break;
	case 0x00:
		switch (kind) {
		case TRACE_REC_SEQ_SKIP:
			if (get_seq(&p, end, in, &seq) < 0)
				return NULL;
			w = record_put_seq_skip(w, out, seq);
			span_seq(sp, seq);
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
			span_time(sp, v);
			break;
		case TRACE_REC_STACK_DELTA:
			if (varint_get_s64(&p, end, &d1) < 0 || varint_get_s64(&p, end, &d2) < 0 ||
			    varint_get_s64(&p, end, &d3) < 0)
				return NULL;
			v = in->stack_node + 1 + (uint64_t)d1;
			in->stack_node = v;
			in->stack_ip += (uint64_t)d3;
			w = record_put_stack(w, out, v, v - (uint64_t)d2, in->stack_ip);
			sp->other = true;
			break;
		default:
			return NULL;
		}
		break;
	default:
		if (kind < 0x80 || varint_get_u64(&p, end, &v) < 0 || v > (uint64_t)(end - p))
			return NULL;
		/* an extended record: as it is */
		sp->other = true;
		if (rc->ext_fn)
			rc->ext_fn(rc->ext_arg, kind, p, (size_t)v);
		p += v;
		memcpy(w, *pp, (size_t)(p - *pp));
		w += p - *pp;
		break;
	}
	*pp = p;
	return w;
}

/* Copies in[0..n), at ring offset in_offset, as it is (record_recode's
 * pass-through); returns n. */
static size_t recode_pass(struct record_recoder *rc, uint64_t in_offset, const uint8_t *in,
			  size_t n, uint8_t *out, uint64_t *out_offset)
{
	if (rc->scan_ok) {
		rc->scan_ok = record_scan(in, n, &rc->in.seq, &rc->span, &rc->counts) == 0;
		rc->damaged |= !rc->scan_ok;
	} else {
		record_count_allocations(in, n, &rc->counts);
	}
	rc->span.unknown = !rc->scan_ok;
	memcpy(out, in, n);
	*out_offset = in_offset;
	return n;
}

size_t record_recode(struct record_recoder *rc, uint64_t lap, uint64_t in_offset, bool pass_lap,
		     const uint8_t *in, size_t n, uint8_t *out, uint64_t *out_offset,
		     size_t *used)
{
	const uint8_t *p = in, *end = in + n;
	uint8_t *w = out;

	memset(&rc->span, 0, sizeof(rc->span));
	if (in_offset == 0) {
		record_state_reset(&rc->in);
		record_state_reset(&rc->out);
		rc->lap = lap;
		rc->out_offset = 0;
		rc->valid = !pass_lap;
		rc->scan_ok = true;
	} else if (!rc->valid || rc->lap != lap || rc->in_next != in_offset) {
		rc->valid = false;
		if (rc->lap != lap || rc->in_next != in_offset)
			rc->scan_ok = false;
	}
	rc->in_next = in_offset + n;
	*used = n;
	rc->recoded = rc->valid;
	if (!rc->valid)
		return recode_pass(rc, in_offset, in, n, out, out_offset);
	*out_offset = rc->out_offset;
	while (p < end) {
		const uint8_t *rec = p;
		uint8_t *next;

		if (*p == TRACE_REC_PAD) { /* a lap's padding: the compact stream needs none */
			p++;
			continue;
		}
		next = recode_one(&p, end, rc, w);
		rc->damaged |= !next;
		if (!next && rec == in) {
			/* damage at the range's first record: it passes through
			 * whole, or the caller would hand it back for ever */
			rc->valid = false;
			rc->scan_ok = false;
			rc->recoded = false;
			return recode_pass(rc, in_offset, in, n, out, out_offset);
		}
		if (!next) {
			/* what this reader does not take: the caller writes the
			 * rest apart (recode.h) */
			*used = (size_t)(rec - in);
			rc->valid = false;
			rc->scan_ok = false;
			break;
		}
		w = next;
	}
	rc->out_offset += (uint64_t)(w - out);
	return (size_t)(w - out);
}

/* Skips k varints at *p (each ends at its first byte below 0x80: no value
 * is decoded); -1 when one is cut off. */
static int skip_varints(const uint8_t **p, const uint8_t *end, unsigned k)
{
	const uint8_t *q = *p;

	while (k) {
		if (q == end)
			return -1;
		k -= !(*q++ & 0x80);
	}
	*p = q;
	return 0;
}

/* Varints after the kind byte of each core record in the shim's form
 * (weight not included), by kind >> 4; 0: not a core record. */
static const unsigned char count_fields[] = {
	[TRACE_REC_ALLOC >> 4] = 5,            /* seq, aref, addr, size, stack */
	[TRACE_REC_FREE >> 4] = 3,             /* seq, fref, addr */
	[TRACE_REC_REALLOC >> 4] = 8,          /* + seq, aref, addr, size, stack */
	[TRACE_REC_ALLOC_WEIGHTED >> 4] = 5,
	[TRACE_REC_REALLOC_WEIGHTED >> 4] = 8,
};

/*
 * Steps *p over one record of the shim's form, adding an allocation record
 * to *counts; returns its kind, or -1 for a record this reader does not
 * take (or one cut off).  An extended record's payload starts at *ext
 * (*ext_len bytes).
 */
static int record_skip(const uint8_t **p, const uint8_t *end, struct record_counts *counts,
		       const uint8_t **ext, uint64_t *ext_len)
{
	unsigned kind = *(*p)++, group = kind >> 4;
	uint64_t v;

	if (kind >= 0x80) { /* an extended record: u length, then bytes */
		if (varint_get_u64(p, end, &v) < 0 || v > (uint64_t)(end - *p))
			return -1;
		*ext = *p;
		*ext_len = v;
		*p += v;
	} else if (group == 0) {
		unsigned k = kind == TRACE_REC_PAD ? 0 : kind == TRACE_REC_STACK_DELTA ? 3 : 1;

		if (kind > TRACE_REC_STACK_DELTA || kind == TRACE_REC_STACK ||
		    skip_varints(p, end, k) < 0)
			return -1;
	} else {
		if (group >= sizeof(count_fields) || !count_fields[group] ||
		    skip_varints(p, end, count_fields[group]) < 0)
			return -1;
		if (kind >= TRACE_REC_ALLOC_WEIGHTED) {
			if (varint_get_u64(p, end, &v) < 0)
				return -1;
			counts->allocations += v;
			counts->records++;
		} else if (group != TRACE_REC_FREE >> 4) {
			counts->allocations++;
			counts->records++;
		}
	}
	return (int)kind;
}

void record_count_allocations(const uint8_t *in, size_t n, struct record_counts *counts)
{
	const uint8_t *p = in, *end = in + n, *ext;
	uint64_t ext_len;

	while (p < end && record_skip(&p, end, counts, &ext, &ext_len) >= 0)
		;
}

int record_scan(const uint8_t *in, size_t n, uint64_t *seq_base, struct record_span *sp,
		struct record_counts *counts)
{
	const uint8_t *p = in, *end = in + n, *ext;
	uint64_t ext_len, v;

	while (p < end) {
		const uint8_t *rec = p;
		unsigned kind = *p, group = kind >> 4;
		int rc;

		/* the seq+ fields first (and the second of a REALLOC), then
		 * the record skipped as record_count_allocations does */
		if (kind == TRACE_REC_THREAD) {
			*seq_base = 0;
		} else if (kind == TRACE_REC_TIME) {
			p++;
			if (varint_get_u64(&p, end, &v) < 0)
				return -1;
			span_time(sp, v);
			p = rec;
		} else if (kind == TRACE_REC_SEQ_SKIP || (kind < 0x80 && group >= 1 && group <= 5)) {
			p++;
			if (varint_get_u64(&p, end, &v) < 0)
				return -1;
			*seq_base += v;
			span_seq(sp, *seq_base);
			if (group == TRACE_REC_REALLOC >> 4 || group == TRACE_REC_REALLOC_WEIGHTED >> 4) {
				if (skip_varints(&p, end, 2) < 0 || varint_get_u64(&p, end, &v) < 0)
					return -1;
				*seq_base += v;
				span_seq(sp, *seq_base);
			}
			p = rec;
		} else if (kind != TRACE_REC_PAD) {
			sp->other = true;
		}
		rc = record_skip(&p, end, counts, &ext, &ext_len);
		if (rc < 0)
			return -1;
	}
	return 0;
}

/* A "string" field (u length, bytes) at *p; -1 when cut off. */
static int get_string(const uint8_t **p, const uint8_t *end, const char **s, size_t *len)
{
	uint64_t v;

	if (varint_get_u64(p, end, &v) < 0 || v > (uint64_t)(end - *p))
		return -1;
	*s = (const char *)*p;
	*len = (size_t)v;
	*p += v;
	return 0;
}

int record_diag_decode(const uint8_t *body, size_t len, uint64_t *code, const char **text,
		       size_t *text_len)
{
	const uint8_t *q = body;

	if (varint_get_u64(&q, body + len, code) < 0 ||
	    get_string(&q, body + len, text, text_len) < 0)
		return -1;
	return 0;
}

int record_process_decode(const uint8_t *body, size_t len, const char **command,
			  size_t *command_len)
{
	const uint8_t *q = body, *end = body + len;
	const char *exe;
	size_t exe_len;
	uint64_t v;

	if (varint_get_u64(&q, end, &v) < 0 || varint_get_u64(&q, end, &v) < 0 ||
	    get_string(&q, end, &exe, &exe_len) < 0 || get_string(&q, end, command, command_len) < 0)
		return -1;
	return 0;
}

int record_diag_each(const uint8_t *in, size_t n,
		     void (*fn)(void *arg, uint64_t code, const char *text, size_t len), void *arg)
{
	const uint8_t *p = in, *end = in + n, *ext = NULL;
	struct record_counts counts = {0};
	uint64_t ext_len = 0, code;
	const char *text;
	size_t len;
	int kind;

	while (p < end) {
		kind = record_skip(&p, end, &counts, &ext, &ext_len);
		if (kind < 0)
			return -1;
		if (kind != TRACE_REC_EXT_DIAG)
			continue;
		if (record_diag_decode(ext, (size_t)ext_len, &code, &text, &len) < 0)
			return -1;
		fn(arg, code, text, len);
	}
	return 0;
}

int record_process_command(const uint8_t *in, size_t n, const char **command, size_t *len)
{
	const uint8_t *p = in, *end = in + n, *ext = NULL;
	struct record_counts counts = {0};
	uint64_t ext_len = 0;
	int kind;

	while (p < end && (kind = record_skip(&p, end, &counts, &ext, &ext_len)) >= 0) {
		if (kind != TRACE_REC_EXT_PROCESS)
			continue;
		return record_process_decode(ext, (size_t)ext_len, command, len);
	}
	return -1;
}
