/*
 * analyze/util/saturate.h - sums and products of the analyzer's figures
 * that stop at UINT64_MAX instead of wrapping.  A report that reached the
 * limit says so (struct aggregate's saturated, and the writers' notes):
 * only a crafted or corrupt trace gets there, and a wrapped total would
 * misstate what was recorded.
 */
#ifndef MPROF_ANALYZE_SATURATE_H
#define MPROF_ANALYZE_SATURATE_H

#include <stdbool.h>
#include <stdint.h>

/* x + y, or UINT64_MAX (then *saturated is set) when it does not fit. */
static inline uint64_t sat_add(uint64_t x, uint64_t y, bool *saturated)
{
	uint64_t r;

	if (__builtin_add_overflow(x, y, &r)) {
		*saturated = true;
		return UINT64_MAX;
	}
	return r;
}

/* x - y, or 0 (then *saturated is set) when y > x: a figure that
 * saturated earlier takes back what it never held. */
static inline uint64_t sat_sub(uint64_t x, uint64_t y, bool *saturated)
{
	if (y > x) {
		*saturated = true;
		return 0;
	}
	return x - y;
}

/* x * y, or UINT64_MAX (then *saturated is set) when it does not fit. */
static inline uint64_t sat_mul(uint64_t x, uint64_t y, bool *saturated)
{
	uint64_t r;

	if (__builtin_mul_overflow(x, y, &r)) {
		*saturated = true;
		return UINT64_MAX;
	}
	return r;
}

/* v as a protobuf or JSON int64: INT64_MAX at most (sets *saturated). */
static inline int64_t sat_int64(uint64_t v, bool *saturated)
{
	if (v > (uint64_t)INT64_MAX) {
		*saturated = true;
		return INT64_MAX;
	}
	return (int64_t)v;
}

#endif
