/*
 * trace/modules_delta.h - the head of a MODULES_DELTA record (mprof-trace(5)):
 * which map it changes, and the ids of the modules that left it.
 *
 * The encoders are header-only, for the recorder (preload/), which links no
 * part of the trace library; the decoder is in modules_delta.c.  The module
 * entries that follow the head are laid out as in a MODULES record.
 *
 * Payload: u epoch, u base epoch, u removed count R, R removed ids (the
 * first as it is, each other minus the one before it minus 1, so ascending
 * and distinct), u added count, then the added modules.
 */
#ifndef MPROF_TRACE_MODULES_DELTA_H
#define MPROF_TRACE_MODULES_DELTA_H

#include <stddef.h>
#include <stdint.h>

#include "trace/varint.h"

/* Bytes of the head for these fields; removed[] ascending and distinct. */
static inline size_t modules_delta_head_bytes(uint64_t epoch, uint64_t base_epoch,
					      const uint64_t *removed, size_t removed_count,
					      uint64_t added_count)
{
	size_t n = varint_len_u64(epoch) + varint_len_u64(base_epoch) +
		   varint_len_u64(removed_count) + varint_len_u64(added_count);

	for (size_t i = 0; i < removed_count; i++)
		n += varint_len_u64(i ? removed[i] - removed[i - 1] - 1 : removed[0]);
	return n;
}

/* Writes the head at p (modules_delta_head_bytes of room); returns its end. */
static inline uint8_t *modules_delta_put_head(uint8_t *p, uint64_t epoch, uint64_t base_epoch,
					      const uint64_t *removed, size_t removed_count,
					      uint64_t added_count)
{
	p = varint_put_u64(p, epoch);
	p = varint_put_u64(p, base_epoch);
	p = varint_put_u64(p, removed_count);
	for (size_t i = 0; i < removed_count; i++)
		p = varint_put_u64(p, i ? removed[i] - removed[i - 1] - 1 : removed[0]);
	return varint_put_u64(p, added_count);
}

/* A decoded head; removed ids are read with modules_delta_get_removed. */
struct modules_delta_head {
	uint64_t epoch;
	uint64_t base_epoch;
	uint64_t removed_count;    /* at most the payload's bytes */
	uint64_t added_count;      /* at most a quarter of the bytes after the head */
	const uint8_t *removed;    /* the removed ids' bytes */
	const uint8_t *modules;    /* the added module entries ... */
	const uint8_t *end;        /* ... up to the payload's end */
};

/* Whether id is among ids[0..n), ascending (a delta's removed ids, or the
 * recorder's own keys of them): a binary search. */
static inline int modules_delta_id_listed(const uint64_t *ids, size_t n, uint64_t id)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ids[mid] < id)
			lo = mid + 1;
		else if (ids[mid] > id)
			hi = mid;
		else
			return 1;
	}
	return 0;
}

/* Decodes the head of payload[0..bytes): every removed id must decode, be
 * ascending without wrapping, and the counts must fit in the bytes (a
 * module entry takes at least 4).  Returns 0 or -EBADMSG. */
int modules_delta_get_head(const uint8_t *payload, size_t bytes, struct modules_delta_head *h);

/* Fills ids[0..h->removed_count) with the removed ids, ascending, from a
 * head modules_delta_get_head accepted. */
void modules_delta_get_removed(const struct modules_delta_head *h, uint64_t *ids);

#endif
