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

#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#include "preload/thread.h"
#include "trace/event_clock.h"
#include "trace/session.h"
#include "trace/varint.h"

/* Events between two TIME records of a thread. */
#define RING_EVENTS_PER_TIME 4096u
/* Room a lap start takes: THREAD and TIME records. */
#define RING_THREAD_START_BYTES (2 + 2 * VARINT_MAX_BYTES)

/* ring_reserve's way when the lap or the ring is short of room. */
uint8_t *ring_reserve_slow(struct preload_thread *t, uint32_t need_bytes);

/*
 * Returns where a record of at most need_bytes can be written, after
 * padding the lap's tail (and restarting the lap with THREAD and TIME
 * records) when the rest of the lap is too short, and after waiting for the
 * collector when the ring is full.  Returns NULL when recording stopped or
 * need_bytes exceeds the ring.  (Inline: the usual case is two compares;
 * out of line it and ring_commit were a fifth of the recorder's time on
 * python3.)
 */
static inline uint8_t *ring_reserve(struct preload_thread *t, uint32_t need_bytes)
{
	if (__builtin_expect(need_bytes + RING_THREAD_START_BYTES <= t->ring_bytes &&
				     t->lap_offset + need_bytes <= t->lap_limit &&
				     t->write_pos + need_bytes - t->read_pos_seen <= t->ring_bytes,
			     1))
		return t->ring + t->lap_offset;
	return ring_reserve_slow(t, need_bytes);
}

/* ring_commit's look, every eighth of a ring, whether the ring holds a
 * quarter unread while the launcher sleeps long: then it wakes it. */
void ring_wake_check(struct preload_thread *t);

/* Publishes the records written from the last ring_reserve up to end. */
static inline void ring_commit(struct preload_thread *t, const uint8_t *end)
{
	uint32_t n = (uint32_t)(end - (t->ring + t->lap_offset));

	t->lap_offset += n;
	t->write_pos += n;
	atomic_store_explicit(&t->slot->write_pos, t->write_pos, memory_order_release);
	if (__builtin_expect(t->write_pos >= t->wake_check_pos, 0))
		ring_wake_check(t);
}

/* Writes a THREAD record (resetting the delta state) and a TIME record.
 * Returns 0, or -1 when recording stopped. */
int ring_write_thread_start(struct preload_thread *t);

/* Starts the faulting in of a ring that t just attached (its lap_offset
 * set): nothing of it counts as there yet. */
void ring_fill_start(struct preload_thread *t);

/* Writes a TIME record and restarts the count to the next one. */
void ring_write_time(struct preload_thread *t);

/* Counts one event; writes a TIME record every RING_EVENTS_PER_TIME. */
static inline void ring_count_event(struct preload_thread *t)
{
	if (__builtin_expect(--t->events_until_time != 0, 1))
		return;
	ring_write_time(t);
}

/* 1 once the process times events by the coarse clock, not the
 * time-stamp counter (trace/event_clock.h): there is none, reading it was
 * forbidden at the start, or the program called prctl(PR_SET_TSC). */
extern _Atomic int ring_clock_coarse;

/* Makes the process time events by the coarse clock from now on; with
 * forbidden set (the program called prctl(PR_SET_TSC)), notes it once
 * (preload/diag.h). */
void ring_clock_use_coarse(int forbidden);

/* The thread's event clock now, in its units: counter ticks, or coarse ns. */
static inline uint64_t ring_ticks(void)
{
	if (__builtin_expect(!atomic_load_explicit(&ring_clock_coarse, memory_order_relaxed), 1))
		return event_clock_tsc();
	return event_clock_coarse_ns();
}

/* Whether the event clock moved a grain since it read last_ticks
 * (ring_ticks(): EVENT_CLOCK_TSC_TICKS_PER_TIME ticks of the counter, or
 * any move of the coarse clock, which only runs forwards). */
static inline int ring_time_due(uint64_t last_ticks)
{
	if (__builtin_expect(!atomic_load_explicit(&ring_clock_coarse, memory_order_relaxed), 1))
		return event_clock_tsc() - last_ticks >= EVENT_CLOCK_TSC_TICKS_PER_TIME;
	return event_clock_coarse_ns() != last_ticks;
}

/* Writes a TIME record before the next event when one is due since the
 * thread's last (ring_time_due): an event is timed to within a few ms, and one after a
 * pause afresh, whether or not the launcher runs (a loaded host may not
 * schedule it for 40 ms and more). */
static inline void ring_time_fresh(struct preload_thread *t)
{
	if (__builtin_expect(!ring_time_due(t->time_ticks), 1))
		return;
	ring_write_time(t);
}

/* CLOCK_MONOTONIC in ns, in the launcher's time namespace (timens.h). */
uint64_t ring_now_ns(void);

/* In a fork child: no thread of it waits for ring room. */
void ring_fork_child(void);

#endif
