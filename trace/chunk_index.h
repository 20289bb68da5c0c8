/*
 * trace/chunk_index.h - the INDEX chunk (TRACE_CHUNK_INDEX, minor 2): what
 * each EVENTS chunk of a trace holds, so that a reader can leave out whole
 * laps of a thread slot that end before a time without inflating them
 * (mprof-trace(5), "The chunk index").
 *
 * Written by the launcher after the last EVENTS chunk, read by the
 * analyzer.  Entries are in file order of the EVENTS chunks: the k-th entry
 * describes the k-th EVENTS chunk, whose file offset a reader learns by
 * walking the chunk headers; re-compressing a trace (cli/rezip.h), which
 * keeps every chunk in its place in that order, leaves the index right.
 * Allocation-free but for the growable encoding buffer.
 */
#ifndef MPROF_TRACE_CHUNK_INDEX_H
#define MPROF_TRACE_CHUNK_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CHUNK_INDEX_FORMAT 1u          /* the payload's first varint */

/* Entry flags. */
#define CHUNK_INDEX_HAS_SEQ 1u         /* seq_first/seq_last are given */
#define CHUNK_INDEX_HAS_TIME 2u        /* time_first/time_last are given */
#define CHUNK_INDEX_OTHER 4u           /* holds records other than allocator
                                        * events, SEQ_SKIP, THREAD, TIME and
                                        * PAD (stack nodes, extended records):
                                        * its lap must be read */
#define CHUNK_INDEX_UNKNOWN 8u         /* the writer could not follow its
                                        * records: its lap must be read */
#define CHUNK_INDEX_FLAGS_ALL 15u

/* One EVENTS chunk. */
struct chunk_index_entry {
	uint32_t stream;        /* chunk header's stream: slot + 1 */
	uint32_t flags;         /* CHUNK_INDEX_* */
	uint64_t lap;           /* the payload header's lap ... */
	uint64_t lap_offset;    /* ... and offset */
	uint64_t seq_first;     /* HAS_SEQ: smallest sequence number of its
	                         * events (a REALLOC's first) */
	uint64_t seq_last;      /* HAS_SEQ: largest */
	uint64_t time_first;    /* HAS_TIME: first TIME record's ns */
	uint64_t time_last;     /* HAS_TIME: largest TIME record's ns */
};

/* An index being written: the encoded entries so far. */
struct chunk_index_writer {
	uint8_t *buf;           /* owned */
	size_t bytes, cap;
	uint64_t count;
	bool failed;            /* out of memory once: the index is dropped */
};

/* Appends e.  Out of memory marks w failed (no index is written). */
void chunk_index_add(struct chunk_index_writer *w, const struct chunk_index_entry *e);

/* The INDEX payload for w's entries, in a buffer the caller frees; NULL when
 * w failed or out of memory.  *bytes is its length. */
uint8_t *chunk_index_payload(const struct chunk_index_writer *w, size_t *bytes);

void chunk_index_writer_free(struct chunk_index_writer *w);

/*
 * Decodes an INDEX payload into *entries (malloc'd array, caller frees) and
 * *count.  Returns 0, -EPROTO for a payload that does not decode (unknown
 * format, cut off, bad flags, spans that overflow, trailing bytes, or more
 * entries than max_count) or -ENOMEM.
 */
int chunk_index_decode(const uint8_t *data, size_t bytes, size_t max_count,
		       struct chunk_index_entry **entries, size_t *count);

#endif
