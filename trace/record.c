/*
 * trace/record.c - the decoder of EVENTS records as functions (its steps
 * are inline in record_decode.h, the encoders in record.h).  Owns no
 * memory; never allocates.
 */
#include <string.h>

#include "trace/record.h"
#include "trace/record_decode.h"

int record_get_u64(const uint8_t **pp, const uint8_t *end, uint64_t *out)
{
	return varint_get_u64(pp, end, out);
}

int record_get_bytes(const uint8_t **pp, const uint8_t *end, const uint8_t **data, size_t *len)
{
	const uint8_t *p = *pp;
	uint64_t n;

	if (varint_get_u64(&p, end, &n) < 0 || n > (uint64_t)(end - p))
		return -1;
	*data = p;
	*len = (size_t)n;
	*pp = p + n;
	return 0;
}

int record_decode(const uint8_t **pp, const uint8_t *end, struct record_state *st,
		  struct trace_event *ev)
{
	return record_decode_inline(pp, end, NULL, st, ev);
}

int record_decode_split(const uint8_t **pp, const uint8_t *end, struct record_columns *cols,
			struct record_state *st, struct trace_event *ev)
{
	return record_decode_inline(pp, end, cols, st, ev);
}
