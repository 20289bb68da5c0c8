/*
 * trace/chunk.c - trace file header and chunk framing: zlib streams (made
 * and read with libdeflate, whole chunks at a time), CRC-32 checks (zlib's
 * CRC-32, computed with libdeflate's: the same values, ~10x fewer
 * instructions than zlib 1.2.13's crc32 on the analyzer's reader thread),
 * and a reader that stops cleanly at a truncated or corrupt chunk, saying
 * where.  Layout in trace/format.h and mprof-trace(5).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>
#include <libdeflate.h>

#include "trace/chunk.h"
#include "trace/split.h"

static int write_all(int fd, const void *buf, size_t n)
{
	const uint8_t *p = buf;

	while (n > 0) {
		ssize_t w = write(fd, p, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

int trace_writer_start(struct trace_writer *w, int fd, uint32_t flags)
{
	uint8_t h[TRACE_FILE_HEADER_BYTES] = { 0 };

	memset(w, 0, sizeof(*w));
	w->fd = fd;
	w->level = 6;
	memcpy(h, TRACE_FILE_MAGIC, 8);
	h[8] = TRACE_VERSION_MAJOR;
	h[10] = TRACE_VERSION_MINOR;
	trace_put_le32(h + 12, TRACE_FILE_HEADER_BYTES);
	trace_put_le32(h + 16, flags);
	int rc = write_all(fd, h, sizeof(h));
	if (rc == 0)
		w->offset_bytes = sizeof(h);
	return rc;
}

int trace_writer_append(struct trace_writer *w, int fd)
{
	off_t end = lseek(fd, 0, SEEK_END);

	memset(w, 0, sizeof(*w));
	if (end < 0)
		return -errno;
	w->fd = fd;
	w->level = 6;
	w->offset_bytes = (uint64_t)end;
	return 0;
}

void trace_deflater_free(struct trace_deflater *d)
{
	free(d->buf);
	if (d->compressor)
		libdeflate_free_compressor(d->compressor);
	memset(d, 0, sizeof(*d));
}

void trace_inflater_free(struct trace_inflater *i)
{
	if (i->decompressor)
		libdeflate_free_decompressor(i->decompressor);
	i->decompressor = NULL;
}

static int grow(uint8_t **buf, size_t *cap, size_t need)
{
	uint8_t *nb;

	if (*cap >= need)
		return 0;
	/* whole 64 KiB: payload buffers go round between the reader and its
	 * callers (trace_reader_swap_payload); sizes in steps spare most of
	 * the reallocs as chunk sizes vary */
	if (need <= SIZE_MAX - 0xffff)
		need = (need + 0xffff) & ~(size_t)0xffff;
	nb = realloc(*buf, need);
	if (!nb)
		return -ENOMEM;
	*buf = nb;
	*cap = need;
	return 0;
}

/* Makes d->buf hold at least bytes.  Returns 0 or -ENOMEM. */
static int deflater_reserve(struct trace_deflater *d, size_t bytes)
{
	return grow(&d->buf, &d->buf_bytes, bytes);
}

/* Compresses raw into d->buf as a zlib stream at level (1..TRACE_LEVEL_MAX).
 * Returns the compressed size, 0 when that would not be smaller than raw,
 * or a negative errno. */
static long deflater_run(struct trace_deflater *d, int level, const void *raw, size_t raw_bytes)
{
	struct libdeflate_compressor *c;
	size_t n;

	if (level > TRACE_LEVEL_MAX)
		level = TRACE_LEVEL_MAX;
	c = d->compressor;
	if (!c || d->level != level) {
		if (c)
			libdeflate_free_compressor(c);
		d->compressor = c = libdeflate_alloc_compressor(level);
		if (!c)
			return -ENOMEM;
		d->level = level;
	}
	if (deflater_reserve(d, raw_bytes) < 0)
		return -ENOMEM;
	/* room for raw_bytes - 1 at most: a result that does not fit is no
	 * gain, and the chunk is stored instead */
	n = raw_bytes > 1 ? libdeflate_zlib_compress(c, raw, raw_bytes, d->buf, raw_bytes - 1) : 0;
	return (long)n;
}

/* The compression state w uses: its own or the one lent to it. */
static struct trace_deflater *writer_deflater(struct trace_writer *w)
{
	return w->deflater ? w->deflater : &w->own;
}

/* Frames raw as one chunk in *f, compressed at level (0: stored) when that
 * makes it smaller; flags: TRACE_CHUNK_SPLIT when raw is a split payload. */
static int frame_chunk(struct trace_deflater *d, int level, unsigned type, unsigned stream,
		       const void *raw, size_t raw_bytes, uint8_t flags,
		       struct trace_chunk_frame *f)
{
	uint8_t *h = f->header;
	long stored;

	if (raw_bytes > TRACE_CHUNK_MAX_RAW_BYTES)
		return -EFBIG;
	stored = level > 0 ? deflater_run(d, level, raw, raw_bytes) : 0;
	if (stored < 0)
		return (int)stored;
	f->payload = raw;
	if (stored > 0) {
		f->payload = d->buf;
		flags |= TRACE_CHUNK_ZLIB;
	} else {
		stored = (long)raw_bytes;
	}
	f->payload_bytes = (size_t)stored;
	memset(h, 0, TRACE_CHUNK_HEADER_BYTES);
	trace_put_le32(h, TRACE_CHUNK_MAGIC);
	h[4] = (uint8_t)type;
	h[5] = flags;
	h[6] = (uint8_t)stream;
	h[7] = (uint8_t)(stream >> 8);
	trace_put_le32(h + 8, (uint32_t)stored);
	trace_put_le32(h + 12, (uint32_t)raw_bytes);
	trace_put_le32(h + 16, libdeflate_crc32(0, f->payload, (size_t)stored));
	trace_put_le32(h + 20, libdeflate_crc32(0, h, 20));
	return 0;
}

/* Writes a chunk's header and payload with one writev when the system takes
 * it whole (a short trace's chunks are small: half its write calls), the
 * rest with write_all.  Returns 0 or a negative errno. */
static int write_frame_all(int fd, const struct trace_chunk_frame *f)
{
	struct iovec iov[2] = {
		{ .iov_base = (void *)f->header, .iov_len = TRACE_CHUNK_HEADER_BYTES },
		{ .iov_base = (void *)f->payload, .iov_len = f->payload_bytes },
	};
	ssize_t w;

	do
		w = writev(fd, iov, 2);
	while (w < 0 && errno == EINTR);
	if (w < 0)
		return -errno;
	if ((size_t)w < TRACE_CHUNK_HEADER_BYTES) {
		int rc = write_all(fd, f->header + w, TRACE_CHUNK_HEADER_BYTES - (size_t)w);

		return rc < 0 ? rc : write_all(fd, f->payload, f->payload_bytes);
	}
	w -= TRACE_CHUNK_HEADER_BYTES;
	return write_all(fd, (const uint8_t *)f->payload + w, f->payload_bytes - (size_t)w);
}

int trace_writer_frame(struct trace_writer *w, const struct trace_chunk_frame *f)
{
	int rc = write_frame_all(w->fd, f);

	if (rc == 0)
		w->offset_bytes += TRACE_CHUNK_HEADER_BYTES + (uint64_t)f->payload_bytes;
	return rc;
}

/* Writes raw as one chunk at w->level (frame_chunk). */
static int write_chunk(struct trace_writer *w, unsigned type, unsigned stream, const void *raw,
		       size_t raw_bytes, uint8_t flags)
{
	struct trace_chunk_frame f;
	int rc = frame_chunk(writer_deflater(w), w->level, type, stream, raw, raw_bytes, flags, &f);

	return rc < 0 ? rc : trace_writer_frame(w, &f);
}

int trace_writer_chunk(struct trace_writer *w, unsigned type, const void *raw, size_t raw_bytes)
{
	return write_chunk(w, type, 0, raw, raw_bytes, 0);
}

int trace_writer_chunk_stream(struct trace_writer *w, unsigned type, unsigned stream,
			      const void *raw, size_t raw_bytes)
{
	return write_chunk(w, type, stream, raw, raw_bytes, 0);
}

int trace_chunk_frame(struct trace_deflater *d, int level, unsigned type, unsigned stream,
		      const void *raw, size_t raw_bytes, struct trace_chunk_frame *f)
{
	return frame_chunk(d, level, type, stream, raw, raw_bytes, 0, f);
}

int trace_chunk_frame_events(struct trace_deflater *d, int level, unsigned stream, uint8_t *buf,
			     size_t bytes, size_t cap, struct trace_chunk_frame *f)
{
	unsigned addr_shift;
	size_t split;

	/* the compression buffer is the scratch: the moved fields are back in
	 * buf before it takes the compressed payload */
	if (level > 0 && cap >= bytes && cap - bytes >= TRACE_SPLIT_EXTRA_BYTES &&
	    deflater_reserve(d, bytes + TRACE_SPLIT_EXTRA_BYTES) == 0) {
		split = trace_split_records(buf, bytes, d->buf, &addr_shift);
		if (split)
			return frame_chunk(d, level, TRACE_CHUNK_EVENTS, stream, buf, split,
					   (uint8_t)(TRACE_CHUNK_SPLIT |
						     TRACE_CHUNK_ADDR_SHIFT_FLAGS(addr_shift)),
					   f);
	}
	return frame_chunk(d, level, TRACE_CHUNK_EVENTS, stream, buf, bytes, 0, f);
}

int trace_writer_events_chunk(struct trace_writer *w, unsigned stream, uint8_t *buf,
			      size_t bytes, size_t cap)
{
	struct trace_chunk_frame f;
	int rc = trace_chunk_frame_events(writer_deflater(w), w->level, stream, buf, bytes, cap,
					  &f);

	return rc < 0 ? rc : trace_writer_frame(w, &f);
}

int trace_writer_copy_chunk(struct trace_writer *w, const void *chunk, size_t bytes)
{
	int rc = write_all(w->fd, chunk, bytes);

	if (rc == 0)
		w->offset_bytes += bytes;
	return rc;
}

int trace_chunk_header_parse(const uint8_t *h, struct trace_chunk_header *out)
{
	if (trace_get_le32(h) != TRACE_CHUNK_MAGIC ||
	    trace_get_le32(h + 20) != libdeflate_crc32(0, h, 20))
		return -EBADMSG;
	out->type = h[4];
	out->flags = h[5];
	out->stream = (unsigned)h[6] | (unsigned)h[7] << 8;
	out->stored_bytes = trace_get_le32(h + 8);
	out->raw_bytes = trace_get_le32(h + 12);
	out->crc = trace_get_le32(h + 16);
	if (out->raw_bytes > TRACE_CHUNK_MAX_RAW_BYTES ||
	    out->stored_bytes > TRACE_CHUNK_MAX_RAW_BYTES + 4096)
		return -EBADMSG;
	return 0;
}

void trace_writer_finish(struct trace_writer *w)
{
	trace_deflater_free(&w->own);
}

int trace_reader_open(struct trace_reader *r, const char *path)
{
	uint8_t h[TRACE_FILE_HEADER_BYTES];
	struct stat st;
	uint32_t hbytes;
	int fd;

	memset(r, 0, sizeof(*r));
	/* O_NONBLOCK: opening a FIFO named as a trace must not wait for a
	 * writer; it is refused below, as is a device, and a file of /proc
	 * (/proc/kmsg: reading it takes the kernel's log, or blocks) shows a
	 * size of 0, less than a header. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0 || fstat(fd, &st) != 0) {
		int e = errno;

		if (fd >= 0)
			close(fd);
		snprintf(r->error, sizeof(r->error), "%s: %s", path, strerror(e));
		return -e;
	}
	if (!S_ISREG(st.st_mode) || st.st_size < TRACE_FILE_HEADER_BYTES) {
		close(fd);
		snprintf(r->error, sizeof(r->error), "%s: not an mprof trace (%s)", path,
			 S_ISREG(st.st_mode) ? "shorter than a file header" : "not a regular file");
		return -EINVAL;
	}
	r->file = fdopen(fd, "rb");
	if (!r->file) {
		int e = errno;

		close(fd);
		snprintf(r->error, sizeof(r->error), "%s: %s", path, strerror(e));
		return -e;
	}
	r->file_bytes = (uint64_t)st.st_size;
	if (fread(h, 1, sizeof(h), r->file) != sizeof(h) || memcmp(h, TRACE_FILE_MAGIC, 8) != 0) {
		snprintf(r->error, sizeof(r->error), "%s: not an mprof trace (bad file header)", path);
		return -EINVAL;
	}
	r->version_major = (uint16_t)(h[8] | h[9] << 8);
	r->version_minor = (uint16_t)(h[10] | h[11] << 8);
	hbytes = trace_get_le32(h + 12);
	r->flags = trace_get_le32(h + 16);
	if (r->version_major < TRACE_VERSION_MAJOR_OLDEST ||
	    r->version_major > TRACE_VERSION_MAJOR) {
		snprintf(r->error, sizeof(r->error),
			 "%s: trace format version %u.%u; this mprof reads versions %u to %u",
			 path, r->version_major, r->version_minor, TRACE_VERSION_MAJOR_OLDEST,
			 TRACE_VERSION_MAJOR);
		return -ENOTSUP;
	}
	if (hbytes < TRACE_FILE_HEADER_BYTES || hbytes > r->file_bytes ||
	    fseeko(r->file, (off_t)hbytes, SEEK_SET) != 0) {
		snprintf(r->error, sizeof(r->error), "%s: bad file header size %" PRIu32, path,
			 hbytes);
		return -EINVAL;
	}
	r->offset_bytes = hbytes;
	return 0;
}

static int reader_fail(struct trace_reader *r, int rc, const char *what)
{
	snprintf(r->error, sizeof(r->error), "%s at offset %" PRIu64, what, r->offset_bytes);
	return rc;
}

/* Whether the n bytes at file offset a are the same as those at b. */
static bool reader_same_bytes(struct trace_reader *r, uint64_t a, uint64_t b, uint64_t n)
{
	uint8_t x[16384], y[sizeof(x)];
	int fd = fileno(r->file);

	for (uint64_t done = 0; done < n;) {
		size_t k = n - done < sizeof(x) ? (size_t)(n - done) : sizeof(x);

		if (pread(fd, x, k, (off_t)(a + done)) != (ssize_t)k ||
		    pread(fd, y, k, (off_t)(b + done)) != (ssize_t)k || memcmp(x, y, k) != 0)
			return false;
		done += k;
	}
	return true;
}

/* The copy being read ends at file offset end (a file header, or the
 * file's end): a copy shorter than one before it, or than this one, was
 * cut short, and the longest tells how much of the trace was read. */
static void reader_copy_ends(struct trace_reader *r, uint64_t end)
{
	uint64_t len = end - r->copy_base;

	if (r->copies && len != r->read_bytes && !r->cut_copy_offset)
		r->cut_copy_offset = len < r->read_bytes ? end : r->copy_base;
	if (len > r->read_bytes) {
		r->read_bytes = len;
		r->read_base = r->copy_base;
	}
}

/* Reads on in the copy whose file header is at file offset at, past the
 * r->read_bytes of it read already (n of them are in the file); 0 when
 * the file ends there. */
static int reader_enter_copy(struct trace_reader *r, uint64_t at, uint64_t n)
{
	r->copies++;
	r->copy_base = at;
	if (n < r->read_bytes && at + n >= r->file_bytes && !r->cut_copy_offset)
		r->cut_copy_offset = r->file_bytes; /* this copy is cut by the file's end */
	if (at + n >= r->file_bytes || fseeko(r->file, (off_t)(at + n), SEEK_SET) != 0)
		return 0;
	r->offset_bytes = at + n;
	return 1;
}

/* The file offset of the first file header that starts in the span bytes
 * after file offset at (at + 1 on), or 0 when none does. */
static uint64_t reader_find_file_header(struct trace_reader *r, uint64_t at, uint64_t span)
{
	uint8_t buf[16384];
	const size_t magic = 8;
	uint64_t from = at + 1, end = at + span + magic - 1;

	if (end > r->file_bytes)
		end = r->file_bytes;
	while (from + magic <= end) {
		size_t k = end - from < sizeof(buf) ? (size_t)(end - from) : sizeof(buf);
		const uint8_t *hit;

		if (pread(fileno(r->file), buf, k, (off_t)from) != (ssize_t)k)
			return 0;
		hit = memmem(buf, k, TRACE_FILE_MAGIC, magic);
		if (hit)
			return from + (uint64_t)(hit - buf);
		from += k - (magic - 1); /* a header across the blocks' border */
	}
	return 0;
}

/*
 * A file header at r->offset_bytes, where a chunk header was due: a copy of
 * the trace (the same bytes as the file's start, as `cat t t` makes) is
 * skipped as far as it was read (or to the next copy's file header), and 1
 * returned when the file goes on past that; else 0, the end of this trace (a copy that reaches the file's end,
 * or another trace).
 */
static int reader_skip_copy(struct trace_reader *r)
{
	uint64_t at = r->offset_bytes, n, next;

	reader_copy_ends(r, at);
	n = r->file_bytes - at < r->read_bytes ? r->file_bytes - at : r->read_bytes;
	/* a copy cut short before the next one's file header ends there */
	next = n > 8 ? reader_find_file_header(r, at, n - 8) : 0;
	if (next)
		n = next - at;
	if (!reader_same_bytes(r, at, r->read_base, n)) {
		r->other_trace_offset = at;
		return 0;
	}
	return reader_enter_copy(r, at, n);
}

/*
 * The chunk at file offset at (span bytes as far as its header tells) did
 * not read: when a file header starts inside it and the copy from there
 * repeats all of the one being read, that copy was cut there (head -c N t;
 * cat t), and the reader goes on in the new copy at the cut chunk (or past
 * what an earlier copy gave).  1: so; 0: a damaged chunk, the trace ending
 * at such a file header that starts another trace.
 */
static int reader_cut_copy(struct trace_reader *r, uint64_t at, uint64_t span)
{
	uint64_t p = reader_find_file_header(r, at, span), len, read;

	if (!p)
		return 0;
	len = p - r->copy_base;
	/* a copy that the file's end cuts shorter still is compared as far as
	 * it goes */
	if (!reader_same_bytes(r, p, r->copy_base,
			       p + len > r->file_bytes ? r->file_bytes - p : len)) {
		r->other_trace_offset = p; /* another trace: this one ends there */
		snprintf(r->error, sizeof(r->error),
			 "cut short by another trace's file header at offset %" PRIu64, p);
		return 0;
	}
	read = at - r->copy_base; /* the cut chunk is not read */
	if (read > r->read_bytes) {
		r->read_bytes = read;
		r->read_base = r->copy_base;
	}
	if (!r->cut_copy_offset)
		r->cut_copy_offset = p;
	if (!reader_enter_copy(r, p, r->read_bytes))
		r->offset_bytes = r->file_bytes; /* nothing after: a clean end */
	return 1;
}

int trace_reader_next(struct trace_reader *r, struct trace_chunk *c)
{
	return trace_reader_next_filtered(r, c, NULL, NULL);
}

/* One try of trace_reader_next_filtered; a chunk that does not read leaves
 * its file offset in *at and its length, as far as known, in *span. */
static int reader_next_chunk(struct trace_reader *r, struct trace_chunk *c,
			     int (*want)(unsigned type, unsigned stream, void *arg), void *arg,
			     uint64_t *at, uint64_t *span)
{
	uint8_t h[TRACE_CHUNK_HEADER_BYTES];
	size_t got;
	uint32_t stored, raw;

	if (r->other_trace_offset)
		return 0; /* this trace ended there */
	for (;;) {
		got = fread(h, 1, sizeof(h), r->file);
		if (got == 0 && feof(r->file)) {
			reader_copy_ends(r, r->offset_bytes);
			return 0;
		}
		if (got < 8 || memcmp(h, TRACE_FILE_MAGIC, 8) != 0)
			break;
		if (!reader_skip_copy(r))
			return 0;
	}
	*at = r->offset_bytes;
	*span = sizeof(h);
	if (got != sizeof(h))
		return reader_fail(r, -EIO, "trace truncated inside a chunk header");
	if (trace_get_le32(h) != TRACE_CHUNK_MAGIC ||
	    trace_get_le32(h + 20) != libdeflate_crc32(0, h, 20))
		return reader_fail(r, -EBADMSG, "corrupt chunk header");
	stored = trace_get_le32(h + 8);
	raw = trace_get_le32(h + 12);
	if (raw > TRACE_CHUNK_MAX_RAW_BYTES || stored > TRACE_CHUNK_MAX_RAW_BYTES + 4096)
		return reader_fail(r, -EBADMSG, "chunk larger than any mprof writes");
	*span += stored;
	c->type = h[4];
	c->stream = (unsigned)h[6] | (unsigned)h[7] << 8;
	c->offset_bytes = r->offset_bytes;
	if (want && !want(c->type, c->stream, arg)) {
		if (r->offset_bytes + sizeof(h) + stored > r->file_bytes && r->file_bytes)
			return reader_fail(r, -EIO, "trace truncated inside a chunk");
		if (fseeko(r->file, (off_t)stored, SEEK_CUR) != 0)
			return reader_fail(r, -EIO, "cannot seek past a chunk");
		c->data = NULL;
		c->bytes = 0;
		c->split = false;
		c->addr_shift = 0;
		r->skipped_at = r->offset_bytes;
		r->offset_bytes += sizeof(h) + stored;
		r->skipped_end = r->offset_bytes;
		return 1;
	}
	if (grow(&r->stored, &r->stored_cap, stored ? stored : 1) < 0 ||
	    grow(&r->raw, &r->raw_cap, raw ? raw : 1) < 0)
		return reader_fail(r, -ENOMEM, "out of memory reading chunk");
	if (fread(r->stored, 1, stored, r->file) != stored)
		return reader_fail(r, -EIO, "trace truncated inside a chunk");
	if (trace_get_le32(h + 16) != libdeflate_crc32(0, r->stored, stored))
		return reader_fail(r, -EBADMSG, "chunk checksum mismatch");
	if (h[5] & TRACE_CHUNK_ZLIB) {
		struct trace_inflater *inf = r->inflater ? r->inflater : &r->own;
		size_t out = 0;

		if (!inf->decompressor) {
			inf->decompressor = libdeflate_alloc_decompressor();
			if (!inf->decompressor)
				return reader_fail(r, -ENOMEM, "out of memory reading chunk");
		}
		if (libdeflate_zlib_decompress(inf->decompressor, r->stored, stored, r->raw, raw,
					       &out) !=
			    LIBDEFLATE_SUCCESS ||
		    out != raw)
			return reader_fail(r, -EBADMSG, "chunk does not inflate");
		c->data = r->raw;
	} else {
		if (raw != stored)
			return reader_fail(r, -EBADMSG, "stored chunk with wrong length");
		c->data = r->stored;
	}
	c->bytes = raw;
	c->split = false;
	c->addr_shift = TRACE_CHUNK_ADDR_SHIFT(h[5]);
	if (c->addr_shift && (!(h[5] & TRACE_CHUNK_SPLIT) || r->version_major < 4))
		return reader_fail(r, -EBADMSG,
				   !(h[5] & TRACE_CHUNK_SPLIT)
					   ? "address granule in a chunk that is not split"
					   : "address granule in a trace of major 1 to 3");
	if (h[5] & TRACE_CHUNK_SPLIT) {
		long joined;

		if (c->type != TRACE_CHUNK_EVENTS || r->version_major < 3)
			return reader_fail(r, -EBADMSG,
					   c->type != TRACE_CHUNK_EVENTS
						   ? "split payload in a chunk that is not EVENTS"
						   : "split payload in a trace of major 1 or 2");
		c->split = r->keep_split;
		if (!c->split) {
			if (grow(&r->joined, &r->joined_cap,
				 !raw ? 1 : c->addr_shift ? trace_join_bytes(raw) : raw) < 0)
				return reader_fail(r, -ENOMEM, "out of memory reading chunk");
			joined = trace_join_records(c->data, raw, c->addr_shift, r->joined,
						    r->joined_cap);
			if (joined < 0)
				return reader_fail(r, -EBADMSG, "chunk's split records do not join");
			c->data = r->joined;
			c->bytes = (size_t)joined;
			c->addr_shift = 0;
		}
	}
	r->offset_bytes += sizeof(h) + stored;
	return 1;
}

int trace_reader_next_filtered(struct trace_reader *r, struct trace_chunk *c,
			       int (*want)(unsigned type, unsigned stream, void *arg), void *arg)
{
	for (;;) {
		uint64_t at = 0, span = 0;
		int rc = reader_next_chunk(r, c, want, arg, &at, &span);

		if (rc >= 0 || !span)
			return rc;
		if (reader_cut_copy(r, at, span))
			continue;
		/* a chunk skipped unread right before may hold the file header
		 * of a copy cut inside it: the chunk after it then did not read */
		if (r->other_trace_offset || !r->skipped_end || r->skipped_end != at ||
		    !reader_cut_copy(r, r->skipped_at, at - r->skipped_at))
			return rc;
	}
}

/* Exchanges buffer *a (capacity *a_cap) with *b (*b_cap). */
static void swap_buffer(uint8_t **a, size_t *a_cap, uint8_t **b, size_t *b_cap)
{
	uint8_t *p = *a;
	size_t n = *a_cap;

	*a = *b;
	*a_cap = *b_cap;
	*b = p;
	*b_cap = n;
}

bool trace_reader_swap_payload(struct trace_reader *r, const struct trace_chunk *c, uint8_t **buf,
			       size_t *cap)
{
	if (!c->data || !c->bytes)
		return false;
	if (c->data == r->raw)
		swap_buffer(&r->raw, &r->raw_cap, buf, cap);
	else if (c->data == r->stored)
		swap_buffer(&r->stored, &r->stored_cap, buf, cap);
	else
		return false;
	return true;
}

void trace_reader_close(struct trace_reader *r)
{
	if (r->file)
		fclose(r->file);
	free(r->stored);
	free(r->raw);
	free(r->joined);
	trace_inflater_free(&r->own);
	memset(r, 0, sizeof(*r));
}
