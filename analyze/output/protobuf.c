/*
 * analyze/output/protobuf.c - the protocol buffers encoder (protobuf.h):
 * appends fields to a growable buffer; knows no message's schema.
 */
#include <stdlib.h>
#include <string.h>

#include "analyze/output/protobuf.h"

enum { PB_WIRE_VARINT = 0, PB_WIRE_BYTES = 2 };

void pb_buf_init(struct pb_buf *b)
{
	memset(b, 0, sizeof(*b));
}

void pb_buf_free(struct pb_buf *b)
{
	free(b->data);
	pb_buf_init(b);
}

/* Room for `more` bytes after len; false (and b failed) when there is none. */
static bool pb_reserve(struct pb_buf *b, size_t more)
{
	size_t cap = b->cap ? b->cap : 256;
	uint8_t *data;

	if (b->failed)
		return false;
	if (more <= b->cap - b->len)
		return true;
	while (more > cap - b->len) {
		if (cap > SIZE_MAX / 2) {
			b->failed = true;
			return false;
		}
		cap *= 2;
	}
	data = realloc(b->data, cap);
	if (!data) {
		b->failed = true;
		return false;
	}
	b->data = data;
	b->cap = cap;
	return true;
}

size_t pb_varint_size(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

/* Writes v as a varint at p (pb_varint_size(v) bytes). */
static void pb_encode_varint(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p = (uint8_t)v;
}

void pb_put_varint(struct pb_buf *b, uint64_t v)
{
	size_t n = pb_varint_size(v);

	if (!pb_reserve(b, n))
		return;
	pb_encode_varint(b->data + b->len, v);
	b->len += n;
}

static void pb_put_key(struct pb_buf *b, uint32_t field, unsigned wire)
{
	pb_put_varint(b, (uint64_t)field << 3 | wire);
}

void pb_put_uint(struct pb_buf *b, uint32_t field, uint64_t v)
{
	pb_put_key(b, field, PB_WIRE_VARINT);
	pb_put_varint(b, v);
}

void pb_put_int(struct pb_buf *b, uint32_t field, int64_t v)
{
	pb_put_uint(b, field, (uint64_t)v);
}

void pb_put_bytes(struct pb_buf *b, uint32_t field, const void *data, size_t bytes)
{
	pb_put_key(b, field, PB_WIRE_BYTES);
	pb_put_varint(b, bytes);
	if (bytes == 0 || !pb_reserve(b, bytes))
		return;
	memcpy(b->data + b->len, data, bytes);
	b->len += bytes;
}

void pb_put_string(struct pb_buf *b, uint32_t field, const char *s)
{
	pb_put_bytes(b, field, s, strlen(s));
}

void pb_put_packed(struct pb_buf *b, uint32_t field, const uint64_t *v, size_t n)
{
	size_t bytes = 0;

	if (n == 0)
		return;
	for (size_t i = 0; i < n; i++)
		bytes += pb_varint_size(v[i]);
	pb_put_key(b, field, PB_WIRE_BYTES);
	pb_put_varint(b, bytes);
	if (!pb_reserve(b, bytes))
		return;
	for (size_t i = 0; i < n; i++) {
		pb_encode_varint(b->data + b->len, v[i]);
		b->len += pb_varint_size(v[i]);
	}
}

size_t pb_msg_begin(struct pb_buf *b, uint32_t field)
{
	pb_put_key(b, field, PB_WIRE_BYTES);
	/* one byte for the length: most messages are shorter than 128 bytes */
	pb_put_varint(b, 0);
	return b->len;
}

void pb_msg_end(struct pb_buf *b, size_t mark)
{
	size_t bytes, n;

	if (b->failed)
		return;
	bytes = b->len - mark;
	n = pb_varint_size(bytes);
	if (n > 1) {
		if (!pb_reserve(b, n - 1))
			return;
		memmove(b->data + mark + n - 1, b->data + mark, bytes);
		b->len += n - 1;
	}
	pb_encode_varint(b->data + mark - 1, bytes);
}
