/*
 * trace/split.c - splitting an EVENTS payload's seq+ and addr~ fields into
 * parts of their own, and joining them back (see trace/split.h).
 *
 * One walk does both: each record's layout (from its kind byte) says which
 * part each of its fields belongs to; splitting reads them all from the
 * plain records and writes each to its part, joining reads each from its
 * part and writes the plain records.  The walk is inlined into both
 * directions, twice each: with every field's bytes checked near the end of
 * a part, unchecked before.  About 50 instructions per record either way
 * (callgrind, sqlite3's trace); the launcher pays it for every chunk it
 * compresses, the report not at all (it decodes split payloads in place,
 * record_decode_split), other readers when they ask the trace reader for
 * plain payloads.  Owns nothing; allocation-free.
 */
#include <string.h>

#include "trace/chunk.h"
#include "trace/format.h"
#include "trace/record.h"
#include "trace/split.h"

enum split_part { PART_REC, PART_SEQ, PART_ADDR, PARTS };

/* The cursors of one walk, each a pointer to the caller's local variable:
 * splitting reads all parts through one cursor (the plain records) and
 * writes three, joining reads three and writes one.  A part written down
 * (splitting's addr fields, from the end of the scratch) gets its bytes in
 * reverse order. */
struct split_walk {
	const uint8_t **in[PARTS];
	const uint8_t *in_end[PARTS];
	uint8_t **out[PARTS];
	int down[PARTS];
	unsigned addr_shift;    /* joining: multiply addr~ fields by 2^this */
	uint64_t addr_bits;     /* splitting: every addr~ delta ORed together */
};

#define SPLIT_INLINE static inline __attribute__((always_inline))

/* Copies one varint of part from where it is to where it goes and returns
 * its value in *value.  Returns 0, or -1 when the input ends inside it or
 * it is longer than VARINT_MAX_BYTES.  Unless checked, the caller knows
 * that VARINT_MAX_BYTES bytes are there. */
SPLIT_INLINE int copy_varint(struct split_walk *w, const int checked,
			     const enum split_part part, uint64_t *value)
{
	const uint8_t **src = w->in[part];
	const uint8_t *end = w->in_end[part];
	uint8_t **dst = w->out[part];
	const uint8_t *p = *src;
	uint8_t *d = *dst;
	uint64_t v = 0;

	if (__builtin_expect((!checked || p < end) && *p < 0x80, 1)) { /* most fields */
		*value = *p;
		if (w->down[part])
			*--d = *p;
		else
			*d++ = *p;
		*src = p + 1;
		*dst = d;
		return 0;
	}
	for (unsigned i = 0;; i++) {
		uint8_t b;

		if ((checked && p == end) || i == VARINT_MAX_BYTES)
			return -1;
		b = *p++;
		if (w->down[part])
			*--d = b;
		else
			*d++ = b;
		v |= (uint64_t)(b & 0x7f) << (7 * i);
		if (!(b & 0x80))
			break;
	}
	*src = p;
	*dst = d;
	*value = v;
	return 0;
}

/* Joining a payload with an address granule: reads one addr~ field and
 * writes it multiplied by 2^addr_shift.  The plain field is at most one byte
 * longer (the shift is 7 bits at most): trace_join_bytes. */
SPLIT_INLINE int unshift_addr(struct split_walk *w)
{
	uint8_t **dst = w->out[PART_ADDR];
	uint8_t *d = *dst;
	int64_t delta;

	/* always bounds-checked: one field of several bytes, the check costs
	 * little */
	if (varint_get_s64(w->in[PART_ADDR], w->in_end[PART_ADDR], &delta) < 0)
		return -1;
	*dst = varint_put_s64(d, (int64_t)((uint64_t)delta << w->addr_shift));
	return 0;
}

/* An addr~ field, moved as it is (its delta noted for the granule) or,
 * joining with a granule, multiplied.  Splitting reads every part through
 * one cursor, so *w->in[PART_ADDR] is where the field starts. */
SPLIT_INLINE int copy_addr(struct split_walk *w, const int checked)
{
	const uint8_t *at = *w->in[PART_ADDR];
	uint64_t v;

	if (w->addr_shift)
		return unshift_addr(w);
	if (copy_varint(w, checked, PART_ADDR, &v) < 0)
		return -1;
	/* a field longer than it need be (readers accept them) would not
	 * come back to its own length: no granule for its chunk */
	w->addr_bits |= (uint64_t)varint_unzigzag(v) |
			(varint_len_u64(v) != (unsigned)(*w->in[PART_ADDR] - at));
	return 0;
}

/* n varints that stay in the records part. */
SPLIT_INLINE int copy_fields(struct split_walk *w, const int checked, unsigned n)
{
	uint64_t v;

	while (n--)
		if (copy_varint(w, checked, PART_REC, &v) < 0)
			return -1;
	return 0;
}

/* seq+ */
SPLIT_INLINE int copy_seq(struct split_walk *w, const int checked)
{
	uint64_t v;

	return copy_varint(w, checked, PART_SEQ, &v);
}

/* A free's block: u fref, then addr~ for 0 and the classed codes
 * (record_fref_explicit, trace/record.h). */
SPLIT_INLINE int copy_fref(struct split_walk *w, const int checked)
{
	uint64_t fref;

	if (copy_varint(w, checked, PART_REC, &fref) < 0)
		return -1;
	if (record_fref_explicit(fref))
		return copy_addr(w, checked);
	return 0;
}

/* An allocation's block: u aref, addr~ for RECORD_AREF_EXPLICIT, u size,
 * s stack~. */
SPLIT_INLINE int copy_new_block(struct split_walk *w, const int checked)
{
	uint64_t aref;

	if (copy_varint(w, checked, PART_REC, &aref) < 0 ||
	    (aref == RECORD_AREF_EXPLICIT && copy_addr(w, checked) < 0))
		return -1;
	return copy_fields(w, checked, 2);
}

/* An extended record's u length and payload. */
SPLIT_INLINE int copy_ext(struct split_walk *w, const int checked)
{
	const uint8_t **src = w->in[PART_REC];
	const uint8_t *end = w->in_end[PART_REC];
	uint8_t **dst = w->out[PART_REC];
	uint64_t len;

	if (copy_varint(w, checked, PART_REC, &len) < 0 || len > (uint64_t)(end - *src))
		return -1;
	memmove(*dst, *src, (size_t)len); /* splitting in place: *dst <= *src */
	*dst += len;
	*src += len;
	return 0;
}

/* Moves one record, kind byte first, by the layouts of format.h.  Returns
 * -1 for an unknown core kind or a record cut off.  (Written out per kind:
 * a table of field codes interpreted per field cost a mispredicted indirect
 * jump per field, 14% of a report's time on cc1's trace.) */
SPLIT_INLINE int walk_record(struct split_walk *w, const int checked)
{
	const uint8_t **src = w->in[PART_REC];
	uint8_t **dst = w->out[PART_REC];
	uint8_t kind = **src;

	*(*dst)++ = kind;
	(*src)++;
	switch (kind & 0xf0) {
	case TRACE_REC_FREE:
		return copy_seq(w, checked) < 0 ? -1 : copy_fref(w, checked);
	case TRACE_REC_ALLOC:
		return copy_seq(w, checked) < 0 ? -1 : copy_new_block(w, checked);
	case TRACE_REC_ALLOC_WEIGHTED:
		if (copy_seq(w, checked) < 0 || copy_new_block(w, checked) < 0)
			return -1;
		return copy_fields(w, checked, 1);
	case TRACE_REC_REALLOC:
	case TRACE_REC_REALLOC_WEIGHTED:
		if (copy_seq(w, checked) < 0 || copy_fref(w, checked) < 0 ||
		    copy_seq(w, checked) < 0 || copy_new_block(w, checked) < 0)
			return -1;
		return (kind & 0xf0) == TRACE_REC_REALLOC ? 0 : copy_fields(w, checked, 1);
	case 0x00:
		break;
	default:
		return kind >= 0x80 ? copy_ext(w, checked) : -1;
	}
	switch (kind) {
	case TRACE_REC_PAD:
		return 0;
	case TRACE_REC_SEQ_SKIP:
		return copy_seq(w, checked);
	case TRACE_REC_THREAD:
	case TRACE_REC_TIME:
		return copy_fields(w, checked, 1);
	case TRACE_REC_STACK:
	case TRACE_REC_STACK_DELTA:
		return copy_fields(w, checked, 3);
	default:
		return -1;
	}
}

/* Length of the slot, lap and offset varints at the start of in, or 0. */
static size_t payload_header_bytes(const uint8_t *in, size_t n)
{
	const uint8_t *p = in;
	uint64_t v;

	for (int i = 0; i < 3; i++)
		if (varint_get_u64(&p, in + n, &v) < 0)
			return 0;
	return (size_t)(p - in);
}

/* The last position in [p, end) with margin bytes after it, or p itself
 * when there is none. */
static inline const uint8_t *safe_limit(const uint8_t *p, const uint8_t *end, size_t margin)
{
	return (size_t)(end - p) > margin ? end - margin : p;
}

/* Reads the varint whose first byte is at *p and whose later bytes lie
 * below it (the addr fields wait in scratch in reverse byte order), moving
 * *p down past it.  The split walk has checked every field, so no bounds. */
static inline uint64_t varint_get_down(const uint8_t **p)
{
	uint64_t v = 0;

	for (unsigned i = 0;; i++) {
		uint8_t b = *(*p)--;

		v |= (uint64_t)(b & 0x7f) << (7 * i);
		if (!(b & 0x80))
			return v;
	}
}

/* The address granule of deltas whose bits ORed together are bits: the
 * largest k <= 7 such that every delta is a multiple of 2^k, 0 when there
 * is none or no delta. */
static unsigned addr_granule(uint64_t bits)
{
	unsigned k;

	if (!bits)
		return 0;
	k = (unsigned)__builtin_ctzll(bits);
	return k < TRACE_CHUNK_ADDR_SHIFT_MAX ? k : TRACE_CHUNK_ADDR_SHIFT_MAX;
}

size_t trace_split_records(uint8_t *buf, size_t n, uint8_t *scratch, unsigned *addr_shift)
{
	size_t head = payload_header_bytes(buf, n), r, s, a, counts;
	const uint8_t *p = buf + head, *end = buf + n;
	const uint8_t *room = safe_limit(p, end, RECORD_MAX_BYTES);
	uint8_t *rec_out = buf + head, *seq_out = scratch, *addr_out = scratch + n;
	struct split_walk w = {
		.in = { &p, &p, &p },
		.in_end = { end, end, end },
		.out = { &rec_out, &seq_out, &addr_out },
		.down = { 0, 0, 1 },
	};
	unsigned k;

	*addr_shift = 0;
	if (!head)
		return 0;
	/* The records part is written over the plain records it was read
	 * from, behind them; the moved fields wait in scratch, seq fields from
	 * its start, addr fields from its end down. */
	while (p < end) {
		uint8_t *rec_at = rec_out, *seq_at = seq_out, *addr_at = addr_out;
		uint64_t addr_bits = w.addr_bits;

		if ((p < room ? walk_record(&w, 0) : walk_record(&w, 1)) < 0) {
			/* not a record this version knows, or cut off: it and
			 * the rest are left out */
			rec_out = rec_at;
			seq_out = seq_at;
			addr_out = addr_at;
			w.addr_bits = addr_bits;
			break;
		}
	}
	r = (size_t)(rec_out - (buf + head));
	s = (size_t)(seq_out - scratch);
	a = (size_t)(scratch + n - addr_out);
	k = addr_granule(w.addr_bits);
	counts = TRACE_SPLIT_COUNTS_BYTES(k);
	memmove(buf + head + counts, buf + head, r);
	trace_put_le32(buf + head, (uint32_t)r);
	trace_put_le32(buf + head + 4, (uint32_t)s);
	if (k)
		trace_put_le32(buf + head + 8, (uint32_t)a);
	memcpy(buf + head + counts + r, scratch, s);
	rec_out = buf + head + counts + r + s;
	if (!k) {
		for (size_t i = 0; i < a; i++)
			rec_out[i] = scratch[n - 1 - i];
		rec_out += a;
	} else {
		/* each field divided by 2^k: never longer than it was, so the
		 * payload stays within n + 12 */
		const uint8_t *q = scratch + n - 1, *stop = q - a;

		while (q > stop) {
			int64_t delta = varint_unzigzag(varint_get_down(&q));

			/* exact: delta is a multiple of 2^k (gcc's >> of a
			 * negative number is arithmetic) */
			rec_out = varint_put_s64(rec_out, delta >> k);
		}
	}
	*addr_shift = k;
	return (size_t)(rec_out - buf);
}

int trace_split_parts(const uint8_t *p, const uint8_t *end, unsigned addr_shift,
		      struct trace_split_parts *parts)
{
	size_t counts = TRACE_SPLIT_COUNTS_BYTES(addr_shift);
	uint32_t r, s;

	if ((size_t)(end - p) < counts)
		return -1;
	r = trace_get_le32(p);
	s = trace_get_le32(p + 4);
	p += counts;
	if (r > (size_t)(end - p) || s > (size_t)(end - p) - r)
		return -1;
	parts->records = p;
	parts->seq = p + r;
	parts->addr = p + r + s;
	parts->plain_bytes = (uint64_t)r + s +
			     (addr_shift ? trace_get_le32(p - 4) : (uint64_t)(end - parts->addr));
	return 0;
}

long trace_join_records(const uint8_t *in, size_t n, unsigned addr_shift, uint8_t *out,
			size_t cap)
{
	size_t head = payload_header_bytes(in, n), need;
	const uint8_t *end = in + n;
	const uint8_t *rec, *rec_end, *seq, *seq_end, *addr, *rec_room, *seq_room, *addr_room;
	uint8_t *plain = out + head;
	struct trace_split_parts parts;
	struct split_walk w;

	if (!head || addr_shift > TRACE_CHUNK_ADDR_SHIFT_MAX ||
	    trace_split_parts(in + head, end, addr_shift, &parts) < 0)
		return -1;
	/* the plain addr part is at most twice the split one (unshift_addr) */
	need = head + (size_t)(parts.addr - parts.records) +
	       (size_t)(end - parts.addr) * (addr_shift ? 2 : 1);
	if (cap < need)
		return -1;
	rec = parts.records;
	rec_end = seq = parts.seq;
	seq_end = addr = parts.addr;
	w = (struct split_walk){
		.in = { &rec, &seq, &addr },
		.in_end = { rec_end, seq_end, end },
		.out = { &plain, &plain, &plain },
		.down = { 0, 0, 0 },
		.addr_shift = addr_shift,
	};
	/* Before these, every part has room for the longest record's fields
	 * and the walk need not check each field's bytes. */
	rec_room = safe_limit(rec, rec_end, RECORD_MAX_BYTES);
	seq_room = safe_limit(seq, seq_end, 2 * VARINT_MAX_BYTES);
	addr_room = safe_limit(addr, end, 2 * VARINT_MAX_BYTES);
	memcpy(out, in, head);
	while (rec < rec_end) {
		int room = rec < rec_room && seq < seq_room && addr < addr_room;

		if ((room ? walk_record(&w, 0) : walk_record(&w, 1)) < 0)
			return -1;
	}
	if (seq != seq_end || addr != end)
		return -1;
	/* with a granule, P must be what the fields came to */
	if (addr_shift && (uint64_t)(plain - out) != head + parts.plain_bytes)
		return -1;
	return (long)(plain - out);
}
