/*
 * trace/modules_delta.c - the decoder of a MODULES_DELTA record's head
 * (trace/modules_delta.h).  Trace bytes are untrusted: every count is
 * checked against the bytes left before a caller sizes anything by it.
 */
#include <errno.h>

#include "trace/modules_delta.h"

int modules_delta_get_head(const uint8_t *payload, size_t bytes, struct modules_delta_head *h)
{
	const uint8_t *p = payload, *end = payload + bytes;
	uint64_t id = 0, gap;

	if (!payload || varint_get_u64(&p, end, &h->epoch) < 0 ||
	    varint_get_u64(&p, end, &h->base_epoch) < 0 ||
	    varint_get_u64(&p, end, &h->removed_count) < 0 ||
	    h->removed_count > (uint64_t)(end - p))
		return -EBADMSG;
	h->removed = p;
	for (uint64_t i = 0; i < h->removed_count; i++) {
		if (varint_get_u64(&p, end, &gap) < 0)
			return -EBADMSG;
		if (i > 0 && (gap == UINT64_MAX || id + gap + 1 < id))
			return -EBADMSG;
		id = i ? id + gap + 1 : gap;
	}
	if (varint_get_u64(&p, end, &h->added_count) < 0 ||
	    h->added_count > (uint64_t)(end - p) / 4)
		return -EBADMSG;
	h->modules = p;
	h->end = end;
	return 0;
}

void modules_delta_get_removed(const struct modules_delta_head *h, uint64_t *ids)
{
	const uint8_t *p = h->removed;
	uint64_t gap = 0;

	for (uint64_t i = 0; i < h->removed_count; i++) {
		varint_get_u64(&p, h->modules, &gap);
		ids[i] = i ? ids[i - 1] + gap + 1 : gap;
	}
}
