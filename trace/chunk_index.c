/*
 * trace/chunk_index.c - encoding and decoding the INDEX chunk's payload
 * (chunk_index.h; layout in mprof-trace(5)).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "trace/chunk_index.h"
#include "trace/varint.h"

#define ENTRY_MAX_BYTES (8 * VARINT_MAX_BYTES)

void chunk_index_add(struct chunk_index_writer *w, const struct chunk_index_entry *e)
{
	uint8_t *p;

	if (w->failed)
		return;
	if (w->cap - w->bytes < ENTRY_MAX_BYTES) {
		size_t n = w->cap ? w->cap * 2 : 4096;
		uint8_t *b = realloc(w->buf, n);

		if (!b) {
			w->failed = true;
			return;
		}
		w->buf = b;
		w->cap = n;
	}
	p = w->buf + w->bytes;
	p = varint_put_u64(p, e->stream);
	p = varint_put_u64(p, e->flags);
	p = varint_put_u64(p, e->lap);
	p = varint_put_u64(p, e->lap_offset);
	if (e->flags & CHUNK_INDEX_HAS_SEQ) {
		p = varint_put_u64(p, e->seq_first);
		p = varint_put_u64(p, e->seq_last - e->seq_first);
	}
	if (e->flags & CHUNK_INDEX_HAS_TIME) {
		p = varint_put_u64(p, e->time_first);
		p = varint_put_u64(p, e->time_last - e->time_first);
	}
	w->bytes = (size_t)(p - w->buf);
	w->count++;
}

uint8_t *chunk_index_payload(const struct chunk_index_writer *w, size_t *bytes)
{
	uint8_t *out, *p;

	if (w->failed)
		return NULL;
	out = malloc(2 * VARINT_MAX_BYTES + w->bytes);
	if (!out)
		return NULL;
	p = varint_put_u64(out, CHUNK_INDEX_FORMAT);
	p = varint_put_u64(p, w->count);
	if (w->bytes)
		memcpy(p, w->buf, w->bytes);
	*bytes = (size_t)(p - out) + w->bytes;
	return out;
}

void chunk_index_writer_free(struct chunk_index_writer *w)
{
	free(w->buf);
	memset(w, 0, sizeof(*w));
}

/* first and first + span; -1 when the span overflows. */
static int get_range(const uint8_t **p, const uint8_t *end, uint64_t *first, uint64_t *last)
{
	uint64_t span;

	if (varint_get_u64(p, end, first) < 0 || varint_get_u64(p, end, &span) < 0 ||
	    span > UINT64_MAX - *first)
		return -1;
	*last = *first + span;
	return 0;
}

static int get_entry(const uint8_t **p, const uint8_t *end, struct chunk_index_entry *e)
{
	uint64_t stream, flags;

	memset(e, 0, sizeof(*e));
	if (varint_get_u64(p, end, &stream) < 0 || stream == 0 || stream > 0xffff ||
	    varint_get_u64(p, end, &flags) < 0 || (flags & ~(uint64_t)CHUNK_INDEX_FLAGS_ALL) ||
	    varint_get_u64(p, end, &e->lap) < 0 || varint_get_u64(p, end, &e->lap_offset) < 0)
		return -1;
	e->stream = (uint32_t)stream;
	e->flags = (uint32_t)flags;
	if ((flags & CHUNK_INDEX_HAS_SEQ) && get_range(p, end, &e->seq_first, &e->seq_last) < 0)
		return -1;
	if ((flags & CHUNK_INDEX_HAS_TIME) && get_range(p, end, &e->time_first, &e->time_last) < 0)
		return -1;
	return 0;
}

int chunk_index_decode(const uint8_t *data, size_t bytes, size_t max_count,
		       struct chunk_index_entry **entries, size_t *count)
{
	const uint8_t *p = data, *end = data + bytes;
	struct chunk_index_entry *v;
	uint64_t format, n;

	*entries = NULL;
	*count = 0;
	if (varint_get_u64(&p, end, &format) < 0 || format != CHUNK_INDEX_FORMAT ||
	    varint_get_u64(&p, end, &n) < 0 || n > max_count)
		return -EPROTO;
	/* an entry takes 4 bytes at least: no count larger than the payload */
	if (n > (uint64_t)(end - p) / 4)
		return -EPROTO;
	v = malloc((n ? n : 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (uint64_t i = 0; i < n; i++) {
		if (get_entry(&p, end, &v[i]) < 0) {
			free(v);
			return -EPROTO;
		}
	}
	if (p != end) {
		free(v);
		return -EPROTO;
	}
	*entries = v;
	*count = (size_t)n;
	return 0;
}
