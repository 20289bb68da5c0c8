/*
 * trace/chunk.h - reading and writing trace files chunk by chunk
 * (file header, chunk headers, CRC-32 checks, zlib streams made and read
 * with libdeflate; mprof-trace(5)).
 *
 * Used by the launcher (cli/) to write traces and by the analyzer to read
 * them and to append the SYMBOLS chunk.  Never used by preload/.  Functions
 * return 0 on success or a negative errno value; readers also leave a
 * human-readable message with the file offset in r->error.
 */
#ifndef MPROF_TRACE_CHUNK_H
#define MPROF_TRACE_CHUNK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "trace/format.h"

struct libdeflate_compressor;
struct libdeflate_decompressor;

/* Compression state: a buffer and a libdeflate compressor, reused from
 * chunk to chunk and remade when the level changes (one for each level
 * used took the launcher's peak memory from ~3.7 to ~5.2 MB on a C++
 * container benchmark, x1.23 -> x1.28-1.33 of that program's own: a
 * level-6 compressor takes ~500 KB).  Zero-initialized means empty; free
 * with trace_deflater_free. */
#define TRACE_LEVEL_MAX 12      /* libdeflate's levels: 1 fastest .. 12 smallest */
struct trace_deflater {
	uint8_t *buf;           /* compressed output, owned */
	size_t buf_bytes;
	struct libdeflate_compressor *compressor; /* owned, or NULL */
	int level;              /* compressor's level */
};

void trace_deflater_free(struct trace_deflater *d);

/* Decompression state: a libdeflate decompressor, made on first use.  A
 * reader owns one, or is lent one to share with the readers before and
 * after it (making one zeroes ~11 KB: a tenth of the symbolize step's
 * instructions on a run's hundreds of small traces).  Zero-initialized
 * means empty; free with trace_inflater_free. */
struct trace_inflater {
	struct libdeflate_decompressor *decompressor; /* owned, or NULL */
};

void trace_inflater_free(struct trace_inflater *i);

struct trace_writer {
	int fd;                 /* owned by the caller */
	uint64_t offset_bytes;  /* bytes written so far */
	int level;              /* compression level for the next chunk, 1..12
	                         * (libdeflate's; 6 is about zlib's 6 in size at
	                         * 2-3x its speed); 0: the payload is stored as
	                         * it is */
	struct trace_deflater *deflater; /* NULL: own; else lent by the caller,
	                                  * e.g. one for many traces written one
	                                  * chunk at a time */
	struct trace_deflater own;
};

/* Starts a trace on fd (which must be empty and writable): writes the file
 * header with flags (TRACE_FLAG_*). */
int trace_writer_start(struct trace_writer *w, int fd, uint32_t flags);

/* Attaches to an existing, complete trace on fd (opened O_RDWR or O_WRONLY)
 * to append more chunks at its end. */
int trace_writer_append(struct trace_writer *w, int fd);

/* Compresses raw (raw_bytes bytes) into one zlib stream and writes it as
 * one chunk of type; stores it as it is at level 0, and when compressing
 * would not make it smaller. */
int trace_writer_chunk(struct trace_writer *w, unsigned type, const void *raw, size_t raw_bytes);

/* The same, naming the chunk's stream (EVENTS: thread slot + 1).  An
 * EVENTS payload written so stays plain. */
int trace_writer_chunk_stream(struct trace_writer *w, unsigned type, unsigned stream,
			      const void *raw, size_t raw_bytes);

/*
 * Writes the plain EVENTS payload buf[0..bytes) of stream as one chunk, in
 * split form (TRACE_CHUNK_SPLIT, with its address granule, trace/split.h)
 * when the writer compresses (level > 0) and buf has room for it (cap >=
 * bytes + TRACE_SPLIT_EXTRA_BYTES): it is split in place, so buf's contents are
 * undefined afterwards.  Records from one of an unknown core kind or cut
 * off on are then left out (no reader could decode past them).  A split
 * payload that does not compress is stored split.
 */
int trace_writer_events_chunk(struct trace_writer *w, unsigned stream, uint8_t *buf,
			      size_t bytes, size_t cap);

/* One chunk framed in memory, ready to be written: its header, then its
 * payload, which lies in the deflater's buffer (compressed) or in the
 * caller's (stored); valid until either changes. */
struct trace_chunk_frame {
	uint8_t header[TRACE_CHUNK_HEADER_BYTES];
	const uint8_t *payload;
	size_t payload_bytes;
};

/* Frames raw as one chunk of type and stream, compressed at level (d's
 * state; 0 stores it) when that makes it smaller.  Returns 0 or a negative
 * errno (-EFBIG: larger than TRACE_CHUNK_MAX_RAW_BYTES). */
int trace_chunk_frame(struct trace_deflater *d, int level, unsigned type, unsigned stream,
		      const void *raw, size_t raw_bytes, struct trace_chunk_frame *f);

/* Frames the plain EVENTS payload buf[0..bytes) of stream, split in place
 * when level > 0 and cap allows it, as trace_writer_events_chunk writes it. */
int trace_chunk_frame_events(struct trace_deflater *d, int level, unsigned stream, uint8_t *buf,
			     size_t bytes, size_t cap, struct trace_chunk_frame *f);

/* Writes a framed chunk at the writer's end. */
int trace_writer_frame(struct trace_writer *w, const struct trace_chunk_frame *f);

/* Appends one whole chunk as a trace holds it (chunk: its 24-byte header
 * and stored payload, bytes in all), unchanged: for rewriting a trace. */
int trace_writer_copy_chunk(struct trace_writer *w, const void *chunk, size_t bytes);

/* Frees the writer's own compression state (not a lent one; does not
 * close fd). */
void trace_writer_finish(struct trace_writer *w);

/* The fields of a chunk header (trace/format.h). */
struct trace_chunk_header {
	unsigned type;          /* enum trace_chunk_type (or unknown) */
	unsigned flags;         /* TRACE_CHUNK_ZLIB, TRACE_CHUNK_SPLIT, granule */
	unsigned stream;
	uint32_t stored_bytes;  /* payload bytes that follow the header */
	uint32_t raw_bytes;     /* payload bytes once inflated */
	uint32_t crc;           /* CRC-32 of the stored payload */
};

/* Reads the TRACE_CHUNK_HEADER_BYTES bytes at h into *out.  Returns 0, or
 * -EBADMSG when the magic or the header's own checksum is wrong or a length
 * is larger than any mprof writes. */
int trace_chunk_header_parse(const uint8_t *h, struct trace_chunk_header *out);

struct trace_reader {
	FILE *file;             /* owned */
	uint16_t version_major, version_minor;
	uint32_t flags;         /* TRACE_FLAG_* from the file header */
	uint64_t offset_bytes;  /* file offset of the next chunk header */
	uint64_t file_bytes;    /* size when opened */
	uint8_t *stored;        /* buffers, owned */
	size_t stored_cap;
	uint8_t *raw;
	size_t raw_cap;
	uint8_t *joined;        /* a split payload joined back, owned */
	size_t joined_cap;
	bool keep_split;        /* set by the caller: hand split EVENTS payloads
	                         * over as they are (trace_chunk.split), for a
	                         * decoder that reads them in place
	                         * (record_decode_split); else they are joined */
	struct trace_inflater *inflater; /* NULL: own; else lent by the caller
	                         * (set after trace_reader_open) */
	struct trace_inflater own;
	uint64_t copies;        /* file headers met where a chunk was due, or
	                         * inside a chunk cut short, whose bytes repeat
	                         * the file's start for all of the trace read so
	                         * far: the whole trace written again (cat t t),
	                         * or after a cut copy (head -c N t; cat t) */
	uint64_t copy_base;     /* the file offset of the copy being read (its
	                         * file header; 0: the first) */
	uint64_t read_bytes;    /* the most of one copy read so far, from its
	                         * start: what a later copy repeats, skipped */
	uint64_t read_base;     /* the file offset of the copy that gave them */
	uint64_t cut_copy_offset; /* where the first copy shorter than another
	                         * ends (the next copy's file header, or the
	                         * file's end): a copy cut short, whose chunks a
	                         * whole copy gave (0: none) */
	uint64_t other_trace_offset; /* a file header where a chunk was due
	                         * that starts no copy: a second trace, which
	                         * the reader ends before (0: none) */
	uint64_t skipped_at, skipped_end; /* the file offsets of the last chunk
	                         * skipped unread (trace_reader_next_filtered),
	                         * and of its end: a file header inside it (a
	                         * copy cut there) shows only at the chunk after */
	char error[320];        /* why the last call failed, with offset */
};

struct trace_chunk {
	unsigned type;          /* enum trace_chunk_type (or unknown) */
	unsigned stream;        /* EVENTS: slot + 1; 0 when not given */
	uint64_t offset_bytes;  /* file offset of the chunk header */
	const uint8_t *data;    /* inflated payload, valid until the next call */
	size_t bytes;
	bool split;             /* data is a split EVENTS payload (trace/split.h;
	                         * only for a reader with keep_split) */
	unsigned addr_shift;    /* split: its address granule's k (0: none;
	                         * TRACE_CHUNK_ADDR_SHIFT) */
};

/* Opens path and checks the file header. -ENOENT etc. from open,
 * -EINVAL for a file that is not a trace (anything but a regular file of at
 * least a header's bytes, never read from), -ENOTSUP for a major outside
 * TRACE_VERSION_MAJOR_OLDEST..TRACE_VERSION_MAJOR. */
int trace_reader_open(struct trace_reader *r, const char *path);

/*
 * Reads the next chunk.  Returns 1 with *c filled, 0 at a clean end of file
 * or at a file header that starts another trace (r->other_trace_offset),
 * -EIO ("truncated") when the file ends inside a chunk, -EBADMSG when a
 * chunk's header or checksum is wrong or it does not inflate.  After a
 * negative return, r->error names the offset; the caller may stop there.
 * A file header that starts a copy of what was read (the trace written
 * twice) is skipped with that part of the copy (r->copies), and what
 * follows, if any, is read as the trace's continuation; so is a copy that
 * starts inside a chunk cut short (the chunk is read whole from the copy,
 * and r->cut_copy_offset names the cut).
 */
int trace_reader_next(struct trace_reader *r, struct trace_chunk *c);

/*
 * Like trace_reader_next, but when want(type, stream, arg) returns false the
 * chunk's payload is skipped unread (not even checksummed): c->data is NULL
 * and c->bytes 0.  For readers that need only some streams.
 */
int trace_reader_next_filtered(struct trace_reader *r, struct trace_chunk *c,
			       int (*want)(unsigned type, unsigned stream, void *arg), void *arg);

/*
 * Hands the buffer holding c's payload (c: the last chunk trace_reader_next
 * gave, with c->bytes > 0) to the caller in exchange for *buf (its
 * capacity *cap, bytes; NULL and 0 for none), which the reader owns from
 * then on and grows as it needs: no copy of the payload.  On return *buf
 * (owned by the caller, free()) starts with the payload and *cap is its
 * capacity.  Returns false, and changes nothing, when the payload lies in
 * no buffer of the reader's own (a joined split payload).
 */
bool trace_reader_swap_payload(struct trace_reader *r, const struct trace_chunk *c, uint8_t **buf,
			       size_t *cap);

void trace_reader_close(struct trace_reader *r);

/* Little-endian helpers shared by the codec and its tests. */
static inline void trace_put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static inline uint32_t trace_get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

#endif
