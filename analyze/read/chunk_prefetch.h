/*
 * analyze/read/chunk_prefetch.h - a trace's chunks read ahead on a second
 * thread: the file reads, the CRC checks and inflating (a quarter of a
 * report's time, measured on a C++ container benchmark's trace) overlap
 * with the caller's decoding and aggregation.
 *
 * The reader thread hands over what trace_reader_next returned, in file
 * order, through CHUNK_PREFETCH_SLOTS buffers; after a corrupt chunk it
 * looks for the next good chunk header itself (a lost chunk, then the
 * chunks after it), and it stops after the end of the file, a truncation
 * or an out-of-memory error, or when the caller stops it.
 */
#ifndef MPROF_ANALYZE_CHUNK_PREFETCH_H
#define MPROF_ANALYZE_CHUNK_PREFETCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trace/chunk.h"

/* Chunks read ahead, at most.  2: with 4, python3's report took 0.6 MiB
 * more (peak RSS) and no less time, in interleaved runs on the five bench
 * traces. */
#define CHUNK_PREFETCH_SLOTS 2u
#define CHUNK_PREFETCH_SPARES 2u /* buffers given back, kept for reuse */

/* One result of trace_reader_next, as the reader thread got it. */
struct prefetched_chunk {
	int rc;                      /* 1 chunk, 0 end of file, -EIO truncated,
	                              * -ENOMEM, other < 0: a lost chunk (the
	                              * next result is the chunk after it, or 0) */
	struct trace_chunk chunk;    /* rc 1: its data lives in this slot */
	uint64_t offset_bytes;       /* the reader's offset after the call (rc
	                              * < 0: where the damage is) */
	char error[sizeof(((struct trace_reader *)0)->error)]; /* rc < 0: why */
	uint8_t *buf;                /* owned: the chunk's payload */
	size_t buf_cap;
};

struct chunk_prefetch;

/*
 * Starts reading r (opened with trace_reader_open, positioned at its first
 * chunk) on a new thread, which owns r until chunk_prefetch_stop (when no
 * thread can be made, chunk_prefetch_next reads r itself).  Returns NULL
 * on out of memory (r untouched).
 */
struct chunk_prefetch *chunk_prefetch_start(struct trace_reader *r);

/* The same, leaving the payloads of the chunks at the file offsets
 * skip[0..n) (ascending; the caller keeps the array until
 * chunk_prefetch_stop) unread: their results have chunk.data NULL and
 * chunk.bytes 0 (the chunk index's plan, index_plan.h).  threaded false:
 * no thread, chunk_prefetch_next reads (for a small trace, where a thread
 * costs more than it saves). */
struct chunk_prefetch *chunk_prefetch_start_skipping(struct trace_reader *r, const uint64_t *skip,
						     size_t n, bool threaded);

/*
 * The next result, in file order; waits for the reader thread.  Valid until
 * the next call or chunk_prefetch_stop.  After a result with rc 0, -EIO or
 * -ENOMEM there are no more (further calls return that result again).
 */
const struct prefetched_chunk *chunk_prefetch_next(struct chunk_prefetch *p);

/*
 * Takes the payload buffer of the last result from p, when that result is
 * a chunk whose chunk.data is data (the buffer's start): the caller owns
 * the buffer, of *cap bytes (give it back with chunk_prefetch_give, or
 * free()); the result's chunk.data is NULL from then on.  Returns NULL,
 * taking nothing, otherwise.  Saves the caller a copy of a payload it
 * keeps.  Call between chunk_prefetch_next and the next call.
 */
uint8_t *chunk_prefetch_take(struct chunk_prefetch *p, const void *data, size_t *cap);

/* Gives a buffer of cap bytes (from chunk_prefetch_take) back for the
 * chunks to come, or frees it when CHUNK_PREFETCH_SPARES wait already or p
 * is NULL: the buffers go round, and malloc does not map and fault in
 * fresh ones for every chunk (measured: cc1's report 6% slower). */
void chunk_prefetch_give(struct chunk_prefetch *p, uint8_t *buf, size_t cap);

/* From now on, EVENTS chunks of streams other than stream (slot + 1), and
 * not of stream 0 (not given in the header), are skipped unread (their results have chunk.data NULL and chunk.bytes 0);
 * chunks already read ahead are handed over as they are. */
void chunk_prefetch_events_only(struct chunk_prefetch *p, unsigned stream);

/* Stops the reader thread (wherever it is), waits for it and frees p; r
 * is the caller's again. */
void chunk_prefetch_stop(struct chunk_prefetch *p);

/*
 * After a bad chunk at offset from: finds the next offset with a chunk magic
 * and a header whose CRC checks, and positions r there.  Returns true when
 * found, false at the end of the file.
 */
bool trace_reader_resync(struct trace_reader *r, uint64_t from);

#endif
