/*
 * trace/record.h - encoding and decoding of EVENTS records (mprof-trace(5)).
 *
 * The encoders are header-only, allocation-free and branch-light: the preload
 * hot path calls them to write straight into its ring.  Each takes the
 * caller's delta state (struct record_state) and a buffer with at least
 * RECORD_MAX_BYTES of room, and returns the end of what it wrote.
 *
 * The decoder (record.c) turns a byte range back into struct trace_event
 * values; it owns no memory: string fields point into the input.
 */
#ifndef MPROF_TRACE_RECORD_H
#define MPROF_TRACE_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "trace/format.h"
#include "trace/varint.h"

/* Largest core record (REALLOC: kind + 7 varints). */
#define RECORD_MAX_BYTES (1 + 7 * VARINT_MAX_BYTES)

/* Delta state shared by encoder and decoder; all zero at a reset point. */
struct record_state {
	uint64_t seq;      /* sequence number of the previous event */
	uint64_t addr;     /* address of the previous event */
	uint64_t stack_ip; /* ip of the previous STACK record */
};

static inline void record_state_reset(struct record_state *st)
{
	st->seq = 0;
	st->addr = 0;
	st->stack_ip = 0;
}

static inline uint8_t *record_put_seq(uint8_t *p, struct record_state *st, uint64_t seq)
{
	p = varint_put_u64(p, seq - st->seq);
	st->seq = seq;
	return p;
}

static inline uint8_t *record_put_addr(uint8_t *p, struct record_state *st, uint64_t addr)
{
	p = varint_put_s64(p, (int64_t)(addr - st->addr));
	st->addr = addr;
	return p;
}

/* ALLOC: a successful allocation of size_bytes (requested) at addr. */
static inline uint8_t *record_put_alloc(uint8_t *p, struct record_state *st, unsigned fn,
					uint64_t seq, uint64_t addr, uint64_t size_bytes,
					uint64_t stack_id, uint64_t weight)
{
	*p++ = (uint8_t)(TRACE_REC_ALLOC | fn);
	p = record_put_seq(p, st, seq);
	p = record_put_addr(p, st, addr);
	p = varint_put_u64(p, size_bytes);
	p = varint_put_u64(p, stack_id);
	return varint_put_u64(p, weight);
}

/* FREE: the block at addr was released (fn: enum trace_free_fn). */
static inline uint8_t *record_put_free(uint8_t *p, struct record_state *st, unsigned fn,
				       uint64_t seq, uint64_t addr)
{
	*p++ = (uint8_t)(TRACE_REC_FREE | fn);
	p = record_put_seq(p, st, seq);
	return record_put_addr(p, st, addr);
}

/* REALLOC: old_addr freed at seq_free, new_addr (size_bytes) born at seq_alloc. */
static inline uint8_t *record_put_realloc(uint8_t *p, struct record_state *st, unsigned fn,
					  uint64_t seq_free, uint64_t old_addr,
					  uint64_t seq_alloc, uint64_t new_addr,
					  uint64_t size_bytes, uint64_t stack_id, uint64_t weight)
{
	*p++ = (uint8_t)(TRACE_REC_REALLOC | fn);
	p = record_put_seq(p, st, seq_free);
	p = record_put_addr(p, st, old_addr);
	p = record_put_seq(p, st, seq_alloc);
	p = record_put_addr(p, st, new_addr);
	p = varint_put_u64(p, size_bytes);
	p = varint_put_u64(p, stack_id);
	return varint_put_u64(p, weight);
}

/* SEQ_SKIP: seq was taken but no event happened (a failed realloc). */
static inline uint8_t *record_put_seq_skip(uint8_t *p, struct record_state *st, uint64_t seq)
{
	*p++ = TRACE_REC_SEQ_SKIP;
	return record_put_seq(p, st, seq);
}

/* THREAD: thread tid starts writing this slot; resets the delta state. */
static inline uint8_t *record_put_thread(uint8_t *p, struct record_state *st, uint64_t tid)
{
	*p++ = TRACE_REC_THREAD;
	record_state_reset(st);
	return varint_put_u64(p, tid);
}

/* TIME: CLOCK_MONOTONIC in ns, taken at the slot's previous sequence number. */
static inline uint8_t *record_put_time(uint8_t *p, uint64_t time_ns)
{
	*p++ = TRACE_REC_TIME;
	return varint_put_u64(p, time_ns);
}

/* STACK: node id = (parent, ip); see format.h for roots. */
static inline uint8_t *record_put_stack(uint8_t *p, struct record_state *st, uint64_t id,
					uint64_t parent, uint64_t ip)
{
	*p++ = TRACE_REC_STACK;
	p = varint_put_u64(p, id);
	p = varint_put_u64(p, parent);
	p = varint_put_s64(p, (int64_t)(ip - st->stack_ip));
	st->stack_ip = ip;
	return p;
}

/*
 * Extended records: kind byte, u payload length, payload.  The writer
 * reserves the length as a fixed 4-byte varint (0x80 0x80 0x80 0x00 | len
 * groups) so it can fill it in after the payload; lengths are below 2^28.
 */
#define RECORD_EXT_HEADER_BYTES 5
#define RECORD_EXT_MAX_PAYLOAD ((1u << 28) - 1)

static inline uint8_t *record_ext_begin(uint8_t *p, unsigned kind)
{
	*p = (uint8_t)kind;
	return p + RECORD_EXT_HEADER_BYTES;
}

/* Fills in the length of the extended record that starts at rec. */
static inline void record_ext_end(uint8_t *rec, const uint8_t *end)
{
	uint32_t len = (uint32_t)(end - (rec + RECORD_EXT_HEADER_BYTES));

	rec[1] = (uint8_t)(0x80 | (len & 0x7f));
	rec[2] = (uint8_t)(0x80 | ((len >> 7) & 0x7f));
	rec[3] = (uint8_t)(0x80 | ((len >> 14) & 0x7f));
	rec[4] = (uint8_t)((len >> 21) & 0x7f);
}

/* Writes a length-prefixed byte string (u length, bytes). */
uint8_t *record_put_bytes(uint8_t *p, const void *data, size_t len);

/* ---- decoding ---- */

enum trace_event_type {
	TRACE_EV_ALLOC,
	TRACE_EV_FREE,
	TRACE_EV_REALLOC,
	TRACE_EV_SEQ_SKIP,
	TRACE_EV_THREAD,
	TRACE_EV_TIME,
	TRACE_EV_STACK,
	TRACE_EV_EXT,      /* any extended record, payload in ext/ext_len */
};

/* One decoded record.  Pointers refer into the decoder's input. */
struct trace_event {
	enum trace_event_type type;
	unsigned kind;         /* raw kind byte */
	unsigned fn;           /* alloc or free function (low nibble) */
	uint64_t seq;          /* ALLOC, FREE, SEQ_SKIP; REALLOC: the free part */
	uint64_t seq2;         /* REALLOC: the alloc part */
	uint64_t addr;         /* ALLOC, FREE; REALLOC: old address */
	uint64_t addr2;        /* REALLOC: new address */
	uint64_t size_bytes;   /* ALLOC, REALLOC */
	uint64_t stack_id;     /* ALLOC, REALLOC; STACK: the node's id */
	uint64_t weight;       /* ALLOC, REALLOC */
	uint64_t tid;          /* THREAD */
	uint64_t time_ns;      /* TIME */
	uint64_t parent;       /* STACK */
	uint64_t ip;           /* STACK */
	const uint8_t *ext;    /* EXT: payload */
	size_t ext_len;        /* EXT: payload bytes */
};

enum record_status {
	RECORD_OK = 0,
	RECORD_END = 1,        /* no more input */
	RECORD_TRUNCATED = -1, /* input ends inside a record */
	RECORD_UNKNOWN = -2,   /* core kind this reader does not know */
};

/*
 * Decodes the record at *pp (skipping PAD bytes), updating st, and advances
 * *pp past it.  Returns RECORD_OK with *ev filled, RECORD_END at the end of
 * input, or a negative enum record_status (then *pp points at the bad record).
 */
int record_decode(const uint8_t **pp, const uint8_t *end, struct record_state *st,
		  struct trace_event *ev);

/* Helpers for extended payloads: read a varint / a length-prefixed string.
 * Return 0 or -1 when the payload ends early. */
int record_get_u64(const uint8_t **pp, const uint8_t *end, uint64_t *out);
int record_get_bytes(const uint8_t **pp, const uint8_t *end, const uint8_t **data, size_t *len);

#endif
