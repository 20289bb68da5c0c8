/*
 * analyze/output/protobuf.h - a protocol buffers encoder, just enough for
 * the writers of binary formats (pprof's profile.proto): varints, zigzag-free
 * int64 (as proto3's int64), length-delimited bytes, packed repeated varints
 * and nested messages, appended to a growable byte buffer.
 *
 * Wire format: https://protobuf.dev/programming-guides/encoding/.  A field
 * is a key (field number << 3 | wire type) then its value; this encoder
 * uses wire types 0 (varint) and 2 (length-delimited) only.
 *
 * Errors are sticky, as a FILE's are: a put that cannot grow the buffer
 * marks it failed and does nothing more; pb_buf_error tells.  The buffer
 * owns its bytes.
 */
#ifndef MPROF_ANALYZE_OUTPUT_PROTOBUF_H
#define MPROF_ANALYZE_OUTPUT_PROTOBUF_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pb_buf {
	uint8_t *data; /* owned; len bytes written */
	size_t len, cap;
	bool failed;   /* out of memory at some put */
};

void pb_buf_init(struct pb_buf *b);
void pb_buf_free(struct pb_buf *b);

/* Empties b, keeping its memory (and its error). */
static inline void pb_buf_clear(struct pb_buf *b)
{
	b->len = 0;
}

/* 0, or -ENOMEM when a put since pb_buf_init failed. */
static inline int pb_buf_error(const struct pb_buf *b)
{
	return b->failed ? -ENOMEM : 0;
}

/* Bytes v takes as a varint (1 to 10). */
size_t pb_varint_size(uint64_t v);

/* A bare varint (no key). */
void pb_put_varint(struct pb_buf *b, uint64_t v);

/* Field `field` as a varint: uint64, bool, enum, or (as proto3 encodes
 * int64) a negative int64 in ten bytes.  Written even when 0. */
void pb_put_uint(struct pb_buf *b, uint32_t field, uint64_t v);
void pb_put_int(struct pb_buf *b, uint32_t field, int64_t v);

/* Field `field` as bytes (wire type 2): a string without its NUL, or raw. */
void pb_put_bytes(struct pb_buf *b, uint32_t field, const void *data, size_t bytes);
void pb_put_string(struct pb_buf *b, uint32_t field, const char *s);

/* Repeated varint field `field`, packed (one length-delimited value);
 * nothing when n is 0. */
void pb_put_packed(struct pb_buf *b, uint32_t field, const uint64_t *v, size_t n);

/*
 * A nested message as field `field`: pb_msg_begin writes its key and
 * returns a mark; the message's own fields follow; pb_msg_end(b, mark)
 * puts its length in front of them (moving them when the length takes
 * more than one byte).  Messages nest.
 */
size_t pb_msg_begin(struct pb_buf *b, uint32_t field);
void pb_msg_end(struct pb_buf *b, size_t mark);

#endif
