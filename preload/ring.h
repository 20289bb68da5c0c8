/*
 * preload/ring.h - writing records into the calling thread's ring.
 *
 * A record is reserved (contiguous room, never straddling the lap end),
 * encoded in place with the trace/record.h encoders and committed, which
 * publishes it to the collector with a release store of write_pos.  When a
 * ring is full the writer waits for the collector; nothing is dropped.
 */
#ifndef MPROF_PRELOAD_RING_H
#define MPROF_PRELOAD_RING_H

#include <stdint.h>

#include "preload/thread.h"

/* Events between two TIME records of a thread. */
#define RING_EVENTS_PER_TIME 4096u

/*
 * Returns where a record of at most need_bytes can be written, after
 * padding the lap's tail (and restarting the lap with THREAD and TIME
 * records) when the rest of the lap is too short, and after waiting for the
 * collector when the ring is full.  Returns NULL when recording stopped or
 * need_bytes exceeds the ring.
 */
uint8_t *ring_reserve(struct preload_thread *t, uint32_t need_bytes);

/* Publishes the records written from the last ring_reserve up to end. */
void ring_commit(struct preload_thread *t, const uint8_t *end);

/* Writes a THREAD record (resetting the delta state) and a TIME record.
 * Returns 0, or -1 when recording stopped. */
int ring_write_thread_start(struct preload_thread *t);

/* Counts one event; writes a TIME record every RING_EVENTS_PER_TIME. */
void ring_count_event(struct preload_thread *t);

/* CLOCK_MONOTONIC in ns. */
uint64_t ring_now_ns(void);

#endif
