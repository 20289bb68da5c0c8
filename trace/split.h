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
 *   u32 P                         only with an address granule (below):
 *                                 bytes of the addr~ fields in plain form
 *   R bytes                       the records without their seq+ and addr~
 *   S bytes                       the seq+ fields, in record order
 *   the rest                      the addr~ fields, in record order
 * Joining puts every field back where it was: join(split(x)) == x, byte for
 * byte, for every payload of whole records of known kinds.
 *
 * Address granules (format major 4).  The C library aligns every block it
 * hands out (glibc: to 16 bytes on 64-bit systems), so every address delta
 * of a chunk is mostly a multiple of the same power of two, and the low
 * bits of every addr~ field are zero bits deflate must spend codes on.
 * When every addr~ delta of a payload is a multiple of 2^k (k = 1..7, the
 * largest such), the split form holds each divided by 2^k and the chunk's
 * flags say k (TRACE_CHUNK_ADDR_SHIFT); a block at a smaller alignment
 * lowers k for its own chunk only (an odd address: no granule), and so does
 * an addr~ field written longer than it need be, which would not multiply
 * back to its own length.  The plain form, and so the lap offsets that
 * count its bytes, stays as it was: P keeps its addr part's length.
 * Measured on the bench's traces, each rewritten at level 6 by the writer
 * before and the one with granules (k = 4 in almost every chunk): python3
 * -4.8%, cc1 -3.7%, a C++ container program -7.1%, sqlite3 -0.9% (a flag
 * bit per field instead, so that odd addresses would cost only themselves,
 * gave back a third of that).
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

/* A split payload is at most this many bytes longer than the plain one
 * (the part counts: R and S, and P with an address granule). */
#define TRACE_SPLIT_EXTRA_BYTES 12
#define TRACE_SPLIT_COUNTS_BYTES(addr_shift) ((addr_shift) ? 12u : 8u)

/*
 * Splits the plain EVENTS payload buf[0..n) in place: buf holds n +
 * TRACE_SPLIT_EXTRA_BYTES bytes; scratch (n bytes, the caller's) keeps the
 * moved fields meanwhile, its contents undefined afterwards.  Sets
 * *addr_shift to the address granule's k (0: none) for the chunk's flags.
 * Returns the split payload's length: without a granule, n + 8 for whole
 * records of known kinds; with one, up to n + 12 (its addr part is
 * shorter); less when a record is of a core kind this version does not
 * know or is cut off at the end, as that record and the rest are left out
 * (no reader could decode past it).  Returns 0, buf unchanged, when buf
 * does not start with the slot, lap and offset varints.  (In place, so that
 * the launcher needs no buffer more than before: three of a chunk's size
 * took a C++ container benchmark's peak memory from x1.28 to x1.36.)
 */
size_t trace_split_records(uint8_t *buf, size_t n, uint8_t *scratch, unsigned *addr_shift);

/* Where the parts of a split payload lie: records [records, seq), seq
 * fields [seq, addr), addr fields [addr, end of the payload); and the
 * length of the records in plain form, in bytes (what lap offsets count:
 * R + S + the addr part's plain length). */
struct trace_split_parts {
	const uint8_t *records, *seq, *addr;
	uint64_t plain_bytes;
};

/*
 * Finds the parts of the split payload whose part counts start at p (right
 * after its slot, lap and offset varints) and which ends at end; addr_shift
 * is the chunk's TRACE_CHUNK_ADDR_SHIFT.  Returns 0, or -1 when the counts
 * are cut off or do not fit before end.
 */
int trace_split_parts(const uint8_t *p, const uint8_t *end, unsigned addr_shift,
		      struct trace_split_parts *parts);

/*
 * Joins the split payload in (n bytes; addr_shift: the chunk's
 * TRACE_CHUNK_ADDR_SHIFT) back into the plain one in out (room for cap
 * bytes; trace_join_bytes(n) is always enough).  Returns the plain
 * payload's length, or -1 when in is not a split payload: counts beyond its
 * end, a field cut off, columns with bytes left over or too few, an unknown
 * core kind, an addr part whose plain length is not P.
 */
long trace_join_records(const uint8_t *in, size_t n, unsigned addr_shift, uint8_t *out,
			size_t cap);

/* Room that joining any split payload of n bytes needs: each addr~ field
 * grows by one byte at most when multiplied back by its granule. */
static inline size_t trace_join_bytes(size_t n)
{
	return 2 * n;
}

#endif
