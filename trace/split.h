/*
 * trace/split.h - the split form of an EVENTS chunk's payload (format major
 * 3, chunk flag TRACE_CHUNK_SPLIT; mprof-trace(5), "Split payloads").
 *
 * The records of a slot interleave fields that repeat (kinds, block
 * references, sizes, stack deltas) with fields that hardly do (sequence
 * number deltas when threads interleave, explicit address deltas).  The
 * split form moves every seq+ and addr~ field, in record order, out of the
 * records into two columns after them, so that deflate's 32 KiB window and
 * its Huffman tables see the repeating part on its own: the bench's five
 * traces compress 7-18% smaller at the same level (measured on their chunks
 * at level 6: sqlite3 -12%, python3 -7%, cc1 -18%, a C++ container program
 * -10%, the two-thread microbenchmark -9%).  The idea is the column
 * layout of columnar storage formats, applied to two fields.
 *
 * Split payload:
 *   u slot, u lap, u offset       as in the plain payload
 *   u32 R, u32 S                  byte counts of the first two parts
 *                                 (little-endian)
 *   R bytes                       the records without their seq+ and addr~
 *   S bytes                       the seq+ fields, in record order
 *   the rest                      the addr~ fields, in record order
 * Joining puts every field back where it was: join(split(x)) == x, byte for
 * byte, for every payload of whole records of known kinds.
 *
 * Both directions walk the records by their layout only (kind byte, and for
 * a block reference whether an address follows); they keep no delta state
 * and allocate nothing.  The launcher splits (trace/chunk.c, for every
 * EVENTS chunk it compresses); the report decodes split payloads in place
 * (record_decode_split in trace/record.h), and the trace reader joins them
 * for every other reader.
 */
#ifndef MPROF_TRACE_SPLIT_H
#define MPROF_TRACE_SPLIT_H

#include <stddef.h>
#include <stdint.h>

#include "trace/varint.h"

/* A split payload is this many bytes longer than the plain one (the two
 * counts). */
#define TRACE_SPLIT_EXTRA_BYTES 8

/*
 * Splits the plain EVENTS payload buf[0..n) in place: buf holds n +
 * TRACE_SPLIT_EXTRA_BYTES bytes; scratch (n bytes, the caller's) keeps the
 * moved fields meanwhile, its contents undefined afterwards.  Returns the
 * split payload's length: n + TRACE_SPLIT_EXTRA_BYTES for whole records of
 * known kinds; less when a record is of a core kind this version does not
 * know or is cut off at the end, as that record and the rest are left out
 * (no reader could decode past it).  Returns 0, buf unchanged, when buf
 * does not start with the slot, lap and offset varints.  (In place, so that
 * the launcher needs no buffer more than before: three of a chunk's size
 * took a C++ container benchmark's peak memory from x1.28 to x1.36.)
 */
size_t trace_split_records(uint8_t *buf, size_t n, uint8_t *scratch);

/* Where the parts of a split payload lie: records [records, seq), seq
 * fields [seq, addr), addr fields [addr, end of the payload). */
struct trace_split_parts {
	const uint8_t *records, *seq, *addr;
};

/*
 * Finds the parts of the split payload whose part counts start at p (right
 * after its slot, lap and offset varints) and which ends at end.  Returns 0,
 * or -1 when the counts are cut off or do not fit before end.
 */
int trace_split_parts(const uint8_t *p, const uint8_t *end, struct trace_split_parts *parts);

/*
 * Joins the split payload in (n bytes) back into the plain one in out
 * (room for cap bytes; n - TRACE_SPLIT_EXTRA_BYTES is always enough).  Returns the plain payload's
 * length, or -1 when in is not a split payload: counts beyond its end, a
 * field cut off, columns with bytes left over or too few, an unknown core
 * kind.
 */
long trace_join_records(const uint8_t *in, size_t n, uint8_t *out, size_t cap);

#endif
