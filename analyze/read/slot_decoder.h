/*
 * analyze/read/slot_decoder.h - decoding EVENTS chunks with the per-slot delta
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
#include "trace/record_decode.h"

struct slot_state {
	bool valid;             /* state matches the next expected chunk */
	uint64_t lap;
	uint64_t next_offset;   /* lap offset the next chunk must start at */
	uint64_t tid;           /* thread that owns the slot now (THREAD records) */
	struct record_state st;
	/* the lap offsets where chunks of lap starts_lap began, rising (each
	 * chunk's header was read once): a chunk at one of them, or of an
	 * earlier lap, repeats what was read */
	bool started;           /* a chunk of the slot was begun */
	uint64_t starts_lap;
	uint64_t *starts;       /* owned */
	size_t start_count, start_cap;
	uint64_t generation;    /* the decoders' when it was last cleared */
};

/* Slot numbers must be below this: more slots than any recorder makes (it
 * makes at most SESSION_DEFAULT_SLOTS, 4096); the bound keeps a hostile trace
 * from costing gigabytes of decoder state (~2.5 KiB a slot).  A chunk of a
 * slot beyond it is malformed. */
#define SLOT_DECODER_MAX_SLOTS (1u << 16)

struct slot_decoders {
	struct slot_state **slots; /* indexed by slot number, owned; each state is
	                            * allocated once so cursors may keep pointers
	                            * to it while other slots are added */
	size_t count;
	uint64_t generation;       /* a state of an older one is cleared when
	                            * its slot is met (slot_decoders_restart) */
};

/* A cursor over the records of one EVENTS chunk, plain or split
 * (trace/split.h: the seq+ and addr~ fields are then read from cols). */
struct chunk_cursor {
	uint64_t slot;
	struct slot_state *state;
	const uint8_t *p;       /* next record byte */
	const uint8_t *end;     /* end of the records */
	bool split;
	struct record_columns cols; /* split only */
	uint64_t addr_plain_bytes; /* split with a granule: P, what the addr~
	                            * fields must come to multiplied back */
	uint64_t base_offset;   /* lap offset of the first record */
	uint64_t plain_bytes;   /* the records' length in plain form */
};

void slot_decoders_init(struct slot_decoders *d);
void slot_decoders_free(struct slot_decoders *d);

/* Forgets every slot's state, for another trace, keeping their memory: a
 * state is cleared when its slot is met again, and only in the parts its
 * records filled, so a trace costs the slots it uses, not a fresh 9 KiB
 * each (symbolize reads hundreds of small traces with one). */
void slot_decoders_restart(struct slot_decoders *d);

/*
 * Parses the EVENTS chunk header in data[0..bytes) (a split payload when
 * split, trace/split.h, whose addr~ fields are in units of 2^addr_shift
 * bytes) and positions cur on its first record.  Returns 0,
 * -EPROTO for a malformed header (or split part counts that do not fit),
 * -EBADMSG for a chunk that continues lost data, -EEXIST for a chunk
 * the slot has begun already (same lap and offset, or an earlier lap: the
 * trace repeats it; the state is left as it was), -ENOMEM.
 */
int slot_decoders_begin(struct slot_decoders *d, const uint8_t *data, size_t bytes, bool split,
			unsigned addr_shift, struct chunk_cursor *cur);

/*
 * Decodes the next record: returns RECORD_OK with *ev filled (THREAD records
 * also update cur->state->tid), RECORD_END at the end of the chunk (the slot
 * state then expects the following chunk), or a negative enum record_status
 * (the rest of the chunk and of its lap is then unreadable).  A split
 * payload's columns are checked at its end (RECORD_COLUMNS: bytes left in
 * one, or addr~ fields that do not come to P): as with a damaged plain
 * payload, the events decoded before are kept.
 */
static inline int chunk_cursor_after(struct chunk_cursor *cur, struct trace_event *ev, int rc);

static inline int chunk_cursor_next(struct chunk_cursor *cur, struct trace_event *ev)
{
	int rc = cur->split ? record_decode_split(&cur->p, cur->end, &cur->cols, &cur->state->st, ev)
			    : record_decode(&cur->p, cur->end, &cur->state->st, ev);

	return chunk_cursor_after(cur, ev, rc);
}

/* chunk_cursor_next with the split payloads' decoder inlined, for the
 * report's loop over the usual records (event_stream.c's slot_fill). */
static inline __attribute__((always_inline)) int chunk_cursor_next_hot(struct chunk_cursor *cur,
									 struct trace_event *ev)
{
	int rc = cur->split
			 ? record_decode_inline(&cur->p, cur->end, &cur->cols, &cur->state->st, ev)
			 : record_decode(&cur->p, cur->end, &cur->state->st, ev);

	return chunk_cursor_after(cur, ev, rc);
}

/* chunk_cursor_next's part after the decoder, which returned rc. */
static inline int chunk_cursor_after(struct chunk_cursor *cur, struct trace_event *ev, int rc)
{
	if (rc == RECORD_OK) {
		if (ev->type == TRACE_EV_THREAD)
			cur->state->tid = ev->tid;
		return rc;
	}
	/* a split payload's columns end with its records */
	if (rc == RECORD_END && cur->split &&
	    (cur->cols.seq != cur->cols.seq_end || cur->cols.addr != cur->cols.addr_end ||
	     (cur->cols.addr_shift && cur->cols.addr_plain_bytes != cur->addr_plain_bytes)))
		rc = RECORD_COLUMNS;
	if (rc == RECORD_END) {
		cur->state->next_offset = cur->base_offset + cur->plain_bytes;
		return rc;
	}
	cur->state->valid = false;
	return rc;
}

#endif
