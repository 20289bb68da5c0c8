/*
 * trace/varint.h - LEB128 variable-length integers, the encoding of every
 * numeric field in an mprof trace (man/mprof-trace.5).
 *
 * Header-only and allocation-free: the preload hot path inlines the encoders.
 * Unsigned values use plain LEB128 (7 bits per byte, low group first, high bit
 * set on every byte but the last; at most 10 bytes for 64 bits).  Signed
 * deltas are zigzag-mapped first ((v << 1) ^ (v >> 63)), as Protocol Buffers
 * do, so small negative numbers stay short.
 */
#ifndef MPROF_TRACE_VARINT_H
#define MPROF_TRACE_VARINT_H

#include <stddef.h>
#include <stdint.h>

/* Longest encoding of a 64-bit value, in bytes. */
#define VARINT_MAX_BYTES 10

/* Writes v at p; returns the byte after the last one written. p must have
 * room for VARINT_MAX_BYTES bytes. */
static inline uint8_t *varint_put_u64(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

/* Bytes of v's encoding (1..VARINT_MAX_BYTES). */
static inline unsigned varint_len_u64(uint64_t v)
{
	return (unsigned)(64 - __builtin_clzll(v | 1) + 6) / 7;
}

static inline uint64_t varint_zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t varint_unzigzag(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

static inline uint8_t *varint_put_s64(uint8_t *p, int64_t v)
{
	return varint_put_u64(p, varint_zigzag(v));
}

/*
 * Reads one unsigned varint from [*pp, end).  On success stores it in *out,
 * advances *pp and returns 0; returns -1 (and leaves *pp alone) when the
 * input ends inside the number or the number is longer than 10 bytes.
 */
static inline int varint_get_u64(const uint8_t **pp, const uint8_t *end, uint64_t *out)
{
	const uint8_t *p = *pp;
	uint64_t v = 0;
	unsigned shift = 0;

	if (p < end && *p < 0x80) { /* most fields are one byte */
		*out = *p;
		*pp = p + 1;
		return 0;
	}
	if (end - p >= VARINT_MAX_BYTES) { /* no end check per byte */
#pragma GCC unroll 10
		for (unsigned i = 0; i < VARINT_MAX_BYTES; i++) {
			uint8_t b = p[i];

			v |= (uint64_t)(b & 0x7f) << (7 * i);
			if (!(b & 0x80)) {
				*out = v;
				*pp = p + i + 1;
				return 0;
			}
		}
		return -1;
	}
	while (p < end && shift < 64) {
		uint8_t b = *p++;
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*out = v;
			*pp = p;
			return 0;
		}
		shift += 7;
	}
	return -1;
}

static inline int varint_get_s64(const uint8_t **pp, const uint8_t *end, int64_t *out)
{
	uint64_t u;

	if (varint_get_u64(pp, end, &u) < 0)
		return -1;
	*out = varint_unzigzag(u);
	return 0;
}

#endif
