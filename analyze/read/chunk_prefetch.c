/*
 * analyze/read/chunk_prefetch.c - the reader thread of chunk_prefetch.h.
 *
 * Owns the thread, the slots and their buffers; borrows the trace reader
 * while the thread runs.  Slots are a ring: the thread fills slot
 * (head + count) % N while count < N, the caller takes slot head.  One
 * mutex guards head, count and the flags; a slot's contents belong to the
 * thread until it is counted, then to the caller until the caller's next
 * call.  Never fails once started: a thread that cannot grow a buffer
 * hands over -ENOMEM as the reader itself would, and when no thread is
 * wanted or can be made the caller's own calls read, one chunk at a time.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libdeflate.h>

#include "analyze/read/chunk_prefetch.h"
#include "trace/varint.h"

struct chunk_prefetch {
	struct trace_reader *reader;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t filled;   /* the thread counted a slot or finished */
	pthread_cond_t emptied;  /* the caller freed a slot or asked to stop */
	struct prefetched_chunk slots[CHUNK_PREFETCH_SLOTS];
	unsigned head, count;    /* the caller's next slot; slots ready */
	bool taken;              /* the caller holds slot head (from its last call) */
	bool done;               /* the thread handed over its last result */
	bool stop;               /* the caller wants no more */
	bool threaded;           /* false: no thread wanted or made, the caller's
	                          * calls read (slot 0) */
	bool after_loss;         /* unthreaded: the last result was a lost chunk */
	atomic_uint events_stream; /* nonzero: the only stream whose EVENTS
	                            * chunks are read (chunk_prefetch_events_only) */
	const uint64_t *skip;    /* the thread's: offsets of chunks left unread, */
	size_t skip_count, skip_next; /* ascending, and the next one due */
	uint8_t *spare[CHUNK_PREFETCH_SPARES]; /* under lock: buffers given back */
	size_t spare_cap[CHUNK_PREFETCH_SPARES];
	unsigned spares;
};

#define RESYNC_BLOCK_BYTES 65536u

/* Whether a valid chunk header starts at file offset start; leaves the
 * file there when it does. */
static bool resync_header_at(struct trace_reader *r, uint64_t start)
{
	uint8_t h[TRACE_CHUNK_HEADER_BYTES];

	return fseeko(r->file, (off_t)start, SEEK_SET) == 0 &&
	       fread(h, 1, sizeof(h), r->file) == sizeof(h) &&
	       trace_get_le32(h + 20) == libdeflate_crc32(0, h, 20) &&
	       fseeko(r->file, (off_t)start, SEEK_SET) == 0;
}

/* Scans blocks with memchr for the magic's first byte (a byte at a time
 * through getc, a zero-filled gigabyte took 16 s). */
bool trace_reader_resync(struct trace_reader *r, uint64_t from)
{
	uint8_t buf[RESYNC_BLOCK_BYTES + 3], magic[4];
	uint64_t base = from + 1; /* the file offset of buf[0] */
	size_t keep = 0;

	trace_put_le32(magic, TRACE_CHUNK_MAGIC);
	if (fseeko(r->file, (off_t)base, SEEK_SET) != 0)
		return false;
	for (;;) {
		size_t got = fread(buf + keep, 1, RESYNC_BLOCK_BYTES, r->file);
		size_t n = keep + got;

		for (size_t i = 0; i + 4 <= n; i++) {
			const uint8_t *p = memchr(buf + i, magic[0], n - 3 - i);

			if (!p)
				break;
			i = (size_t)(p - buf);
			if (memcmp(p, magic, 4) != 0)
				continue;
			if (resync_header_at(r, base + i)) {
				r->offset_bytes = base + i;
				return true;
			}
			if (fseeko(r->file, (off_t)(base + n), SEEK_SET) != 0)
				return false;
		}
		if (got == 0)
			return false;
		keep = n < 3 ? n : 3; /* a magic may straddle two blocks */
		memmove(buf, buf + n - keep, keep);
		base += n - keep;
	}
}

/* A slot whose buffer was taken gets a spare one, if any waits. */
static void slot_refill(struct chunk_prefetch *p, struct prefetched_chunk *s)
{
	if (s->buf)
		return;
	pthread_mutex_lock(&p->lock);
	if (p->spares) {
		p->spares--;
		s->buf = p->spare[p->spares];
		s->buf_cap = p->spare_cap[p->spares];
	}
	pthread_mutex_unlock(&p->lock);
}

static int chunk_wanted(unsigned type, unsigned stream, void *arg)
{
	struct chunk_prefetch *p = arg;
	unsigned only = atomic_load_explicit(&p->events_stream, memory_order_relaxed);
	uint64_t at = p->reader->offset_bytes; /* the chunk's */

	while (p->skip_next < p->skip_count && p->skip[p->skip_next] < at)
		p->skip_next++;
	if (p->skip_next < p->skip_count && p->skip[p->skip_next] == at)
		return 0;
	/* stream 0: not given, it may be any */
	return type != TRACE_CHUNK_EVENTS || !only || !stream || stream == only;
}

/* Reads the next result into slot s (owned by the thread).  Returns false
 * when it is the last one. */
static bool read_one(struct chunk_prefetch *p, struct prefetched_chunk *s, bool after_loss)
{
	struct trace_reader *r = p->reader;
	struct trace_chunk c;

	slot_refill(p, s);

	if (after_loss && !trace_reader_resync(r, r->offset_bytes)) {
		s->rc = 0; /* nothing readable after the damage: the end */
		s->offset_bytes = r->offset_bytes;
		return false;
	}
	s->rc = trace_reader_next_filtered(r, &c, chunk_wanted, p);
	s->offset_bytes = r->offset_bytes;
	if (s->rc < 0) {
		snprintf(s->error, sizeof(s->error), "%s", r->error);
		return s->rc != -EIO && s->rc != -ENOMEM;
	}
	if (s->rc == 0)
		return false;
	if (trace_reader_swap_payload(r, &c, &s->buf, &s->buf_cap)) {
		/* the reader's buffer, taken whole: no copy */
		s->chunk = c;
		s->chunk.data = s->buf;
		return true;
	}
	if (c.bytes > s->buf_cap || !s->buf) {
		/* doubling: a few reallocs per slot, not one per larger chunk;
		 * at least a byte, so that an empty payload's pointer is not
		 * NULL either (its readers compute data + bytes) */
		size_t cap = s->buf_cap * 2 > c.bytes ? s->buf_cap * 2 : c.bytes;
		uint8_t *b;

		if (!cap)
			cap = 1;
		b = realloc(s->buf, cap);
		if (!b) {
			s->rc = -ENOMEM;
			snprintf(s->error, sizeof(s->error), "out of memory reading chunk");
			return false;
		}
		s->buf = b;
		s->buf_cap = cap;
	}
	if (c.bytes)
		memcpy(s->buf, c.data, c.bytes);
	s->chunk = c;
	s->chunk.data = c.data ? s->buf : NULL;
	return true;
}

static void *reader_thread(void *arg)
{
	struct chunk_prefetch *p = arg;
	bool more = true, after_loss = false;

	while (more) {
		struct prefetched_chunk *s;

		pthread_mutex_lock(&p->lock);
		while (!p->stop && p->count >= CHUNK_PREFETCH_SLOTS)
			pthread_cond_wait(&p->emptied, &p->lock);
		if (p->stop) {
			pthread_mutex_unlock(&p->lock);
			break;
		}
		s = &p->slots[(p->head + p->count) % CHUNK_PREFETCH_SLOTS];
		pthread_mutex_unlock(&p->lock);

		more = read_one(p, s, after_loss);
		after_loss = s->rc < 0;

		pthread_mutex_lock(&p->lock);
		p->count++;
		if (!more)
			p->done = true;
		pthread_cond_signal(&p->filled);
		pthread_mutex_unlock(&p->lock);
	}
	return NULL;
}

struct chunk_prefetch *chunk_prefetch_start(struct trace_reader *r)
{
	return chunk_prefetch_start_skipping(r, NULL, 0, true);
}

struct chunk_prefetch *chunk_prefetch_start_skipping(struct trace_reader *r, const uint64_t *skip,
						     size_t n, bool threaded)
{
	struct chunk_prefetch *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->reader = r;
	p->skip = skip;
	p->skip_count = n;
	if (pthread_mutex_init(&p->lock, NULL) != 0) {
		free(p);
		return NULL;
	}
	if (pthread_cond_init(&p->filled, NULL) != 0) {
		pthread_mutex_destroy(&p->lock);
		free(p);
		return NULL;
	}
	if (pthread_cond_init(&p->emptied, NULL) != 0) {
		pthread_cond_destroy(&p->filled);
		pthread_mutex_destroy(&p->lock);
		free(p);
		return NULL;
	}
	p->threaded = threaded && pthread_create(&p->thread, NULL, reader_thread, p) == 0;
	return p;
}

/* Without a thread: each call reads the next result into slot 0. */
static const struct prefetched_chunk *next_unthreaded(struct chunk_prefetch *p)
{
	struct prefetched_chunk *s = &p->slots[0];

	if (!p->done) {
		p->done = !read_one(p, s, p->after_loss);
		p->after_loss = s->rc < 0;
	}
	return s;
}

const struct prefetched_chunk *chunk_prefetch_next(struct chunk_prefetch *p)
{
	const struct prefetched_chunk *s;

	if (!p->threaded)
		return next_unthreaded(p);
	pthread_mutex_lock(&p->lock);
	if (p->taken) {
		/* the last result stays when it was the final one */
		if (p->done && p->count == 1) {
			s = &p->slots[p->head];
			pthread_mutex_unlock(&p->lock);
			return s;
		}
		p->head = (p->head + 1) % CHUNK_PREFETCH_SLOTS;
		p->count--;
		p->taken = false;
		pthread_cond_signal(&p->emptied);
	}
	while (p->count == 0)
		pthread_cond_wait(&p->filled, &p->lock);
	p->taken = true;
	s = &p->slots[p->head];
	pthread_mutex_unlock(&p->lock);
	return s;
}

uint8_t *chunk_prefetch_take(struct chunk_prefetch *p, const void *data, size_t *cap)
{
	struct prefetched_chunk *s = &p->slots[p->threaded ? p->head : 0];
	uint8_t *buf = s->buf;

	/* the slot is the caller's until its next call: no lock needed */
	if (s->rc != 1 || !buf || data != buf || s->chunk.data != buf)
		return NULL;
	*cap = s->buf_cap;
	s->buf = NULL;
	s->buf_cap = 0;
	s->chunk.data = NULL;
	return buf;
}

void chunk_prefetch_give(struct chunk_prefetch *p, uint8_t *buf, size_t cap)
{
	if (p && buf) {
		pthread_mutex_lock(&p->lock);
		if (p->spares < CHUNK_PREFETCH_SPARES) {
			p->spare[p->spares] = buf;
			p->spare_cap[p->spares] = cap;
			p->spares++;
			buf = NULL;
		}
		pthread_mutex_unlock(&p->lock);
	}
	free(buf);
}

void chunk_prefetch_events_only(struct chunk_prefetch *p, unsigned stream)
{
	atomic_store_explicit(&p->events_stream, stream, memory_order_relaxed);
}

void chunk_prefetch_stop(struct chunk_prefetch *p)
{
	if (!p)
		return;
	if (p->threaded) {
		pthread_mutex_lock(&p->lock);
		p->stop = true;
		pthread_cond_signal(&p->emptied);
		pthread_mutex_unlock(&p->lock);
		pthread_join(p->thread, NULL);
	}
	for (unsigned i = 0; i < CHUNK_PREFETCH_SLOTS; i++)
		free(p->slots[i].buf);
	for (unsigned i = 0; i < p->spares; i++)
		free(p->spare[i]);
	pthread_cond_destroy(&p->emptied);
	pthread_cond_destroy(&p->filled);
	pthread_mutex_destroy(&p->lock);
	free(p);
}
