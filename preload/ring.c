/*
 * preload/ring.c - the writer side of a thread's ring (trace/session.h).
 *
 * Owns the layout rules: records never straddle the end of a lap (the tail
 * is filled with PAD bytes and the next lap starts with THREAD and TIME
 * records, because readers reset their delta state at every lap start), and
 * the ring never overwrites what the collector has not read (the writer
 * waits, counting the wait in the header; if the launcher is gone, or has
 * given up the file as damaged (PROC_ABANDONED), recording stops for good).  Only the owner thread writes its ring (the meta
 * stream's ring, preload/meta.c, is written by one thread at a time under
 * the meta lock).  Must never call malloc.
 */
#define _GNU_SOURCE
#include <string.h>
#include <time.h>

#include "preload/clock.h"
#include "preload/diag.h"
#include "preload/launcher_alive.h"
#include "preload/lock.h"
#include "preload/mem.h"
#include "preload/populate.h"
#include "preload/ring.h"
#include "preload/stack_scrub.h"
#include "preload/sys.h"
#include "preload/timens.h"
#include "preload/wait.h"

#define RING_WAIT_SPINS 64u
#define RING_WAIT_YIELDS 16u
#define RING_WAIT_SLEEP_NS 50000L
#define RING_WAIT_SLEEP_MAX_NS 2000000L
#define RING_WAIT_SLEEPERS_FREE 4u /* sleepers that sleep 50 us as one does */
#define RING_LAUNCHER_CHECK_NS 100000000ull
/* The most a ring is faulted in ahead at once (ring_fill): 16 pages, one
 * madvise per 64 KiB of a thread's first lap. */
#define RING_FILL_STEP_MAX_BYTES (64u << 10)

/* Threads of this process sleeping in ring_wait_room now.  Up to 4 sleep
 * 50 us between looks at their rings, as one always did; more sleep 50 us
 * per 4 (at most 2 ms), so that together they look no more often than 4
 * would: a hundred threads polling every 50 us keep the launcher that
 * would make them room off the processors (bench/HISTORY.md). */
static _Atomic unsigned ring_sleepers;

_Atomic int ring_clock_coarse = !EVENT_CLOCK_IS_TSC;

void ring_clock_use_coarse(int forbidden)
{
	if (forbidden)
		atomic_store(&preload_clock_banned, 1);
	if (atomic_exchange(&ring_clock_coarse, 1) == 0 && forbidden)
		diag_note(TRACE_DIAG_INFO, "the program forbade reading the time-stamp counter "
					   "(prctl PR_SET_TSC): its later events are timed to a "
					   "scheduler tick (the coarse clock)");
}

void ring_fork_child(void)
{
	atomic_store_explicit(&ring_sleepers, 0, memory_order_relaxed);
}

uint64_t ring_now_ns(void)
{
	return timens_mono_ns();
}

/* Wakes the launcher when it is in a long idle wait.  write_pos was stored
 * before: the launcher, which sets the flag before it looks at the rings a
 * last time, sees one or the other. */
static void ring_wake_if_asleep(void)
{
	atomic_thread_fence(memory_order_seq_cst);
	if (atomic_load_explicit(&preload_proc.hdr->time_tick, memory_order_relaxed) &
	    SESSION_TIME_TICK_ASLEEP) {
		preload_launcher_wake();
		preload_stack_scrub();
	}
}

void ring_wake_check(struct preload_thread *t)
{
	uint64_t quarter = t->ring_bytes / 4;

	t->read_pos_seen = atomic_load_explicit(&t->slot->read_pos, memory_order_acquire);
	if (t->write_pos - t->read_pos_seen < quarter) {
		t->wake_check_pos = t->read_pos_seen + quarter;
		return;
	}
	t->wake_check_pos = t->write_pos + quarter / 2;
	ring_wake_if_asleep();
}

/* Whether records may still be written (recording, or the initializer's
 * first records). */
static int ring_phase_writable(void)
{
	int phase = atomic_load_explicit(&preload_phase, memory_order_relaxed);

	return phase == PRELOAD_READY || phase == PRELOAD_INITIALIZING;
}

static int ring_has_room(struct preload_thread *t, uint32_t need_bytes)
{
	return t->write_pos + need_bytes - t->read_pos_seen <= t->ring_bytes;
}

/*
 * Waits until the collector has made room for need_bytes.  Spins briefly,
 * then yields, then sleeps 50 us, or 50 us per 4 sleeping threads of the
 * process (at most 2 ms; *sleeping is set once it counts among them);
 * checks every 100 ms that the launcher still exists.  Returns 0, or -1
 * when recording stopped.
 */
static int ring_wait_room_loop(struct preload_thread *t, uint32_t need_bytes,
			       int *sleeping)
{
	struct timespec nap = { 0, RING_WAIT_SLEEP_NS };
	uint64_t next_check_ns = 0;
	unsigned round = 0;

	for (;;) {
		t->read_pos_seen = atomic_load_explicit(&t->slot->read_pos, memory_order_acquire);
		if (ring_has_room(t, need_bytes))
			return 0;
		if (!ring_phase_writable())
			return -1;
		round++;
		if (round < RING_WAIT_SPINS) {
			preload_cpu_relax();
			continue;
		}
		if (round < RING_WAIT_SPINS + RING_WAIT_YIELDS) {
			preload_yield();
			continue;
		}
		if (!*sleeping) {
			*sleeping = 1;
			atomic_fetch_add_explicit(&ring_sleepers, 1, memory_order_relaxed);
		}
		{
			unsigned k = atomic_load_explicit(&ring_sleepers, memory_order_relaxed) /
				     RING_WAIT_SLEEPERS_FREE;

			nap.tv_nsec = k > RING_WAIT_SLEEP_MAX_NS / RING_WAIT_SLEEP_NS
					      ? RING_WAIT_SLEEP_MAX_NS
					      : RING_WAIT_SLEEP_NS * (long)(k ? k : 1);
		}
		preload_nap(&nap);
		if (atomic_load_explicit(&preload_proc.hdr->state, memory_order_relaxed) ==
		    PROC_ABANDONED) {
			preload_process_disable("mprof stopped reading this process's rings, which "
						"the program wrote over; recording stopped");
			return -1;
		}
		if (ring_now_ns() >= next_check_ns) {
			if (next_check_ns && !preload_launcher_alive()) {
				preload_process_disable("the mprof launcher is gone while the "
							"program was running; recording stopped");
				return -1;
			}
			next_check_ns = ring_now_ns() + RING_LAUNCHER_CHECK_NS;
		}
	}
}

/* ring_wait_room_loop, counted in the header and among the sleepers. */
static int ring_wait_room(struct preload_thread *t, uint32_t need_bytes)
{
	struct session_proc_header *h = preload_proc.hdr;
	int sleeping = 0, rc;

	atomic_fetch_add_explicit(&h->waits, 1, memory_order_relaxed);
	atomic_fetch_or_explicit(&h->diag_flags, 1u << TRACE_DIAG_RING_FULL_WAIT,
				 memory_order_relaxed);
	ring_wake_if_asleep();
	rc = ring_wait_room_loop(t, need_bytes, &sleeping);
	if (sleeping)
		atomic_fetch_sub_explicit(&ring_sleepers, 1, memory_order_relaxed);
	return rc;
}

static int ring_ensure_room(struct preload_thread *t, uint32_t need_bytes)
{
	if (ring_has_room(t, need_bytes))
		return 0;
	t->read_pos_seen = atomic_load_explicit(&t->slot->read_pos, memory_order_acquire);
	if (ring_has_room(t, need_bytes))
		return 0;
	return ring_wait_room(t, need_bytes);
}

void ring_fill_start(struct preload_thread *t)
{
	t->fill_from = t->lap_offset & ~(PRELOAD_PAGE_BYTES - 1);
	t->fill_step = PRELOAD_PAGE_BYTES;
	t->fill_wrapped = 0;
	t->lap_limit = t->fill_from;
}

/*
 * Faults in the ring from lap_limit up to at least offset target of this
 * lap (populate.h), in steps that double up to RING_FILL_STEP_MAX_BYTES: a
 * thread that writes little gets little more than it writes.  Faulted in
 * from fill_from at the thread's attach to the ring's end, then from 0 to
 * fill_from in the next lap; after that the whole ring is there and
 * lap_limit stays at its end.  Returns 0, or -1 when the file system
 * refused the pages (recording stopped, with a diagnostic).
 */
static int ring_fill(struct preload_thread *t, uint32_t target)
{
	uint32_t stop = t->fill_wrapped ? t->fill_from : t->ring_bytes;
	uint32_t from = t->lap_limit;
	uint64_t to = (uint64_t)from + t->fill_step;

	if (to < target)
		to = target;
	to = (to + PRELOAD_PAGE_BYTES - 1) & ~(uint64_t)(PRELOAD_PAGE_BYTES - 1);
	if (to > stop)
		to = stop;
	if (to > from && populate_pages(t->ring + from, (size_t)(to - from)) < 0) {
		preload_process_disable(POPULATE_FULL_TEXT);
		return -1;
	}
	if (t->fill_step < RING_FILL_STEP_MAX_BYTES)
		t->fill_step *= 2;
	if (to < stop) {
		t->lap_limit = (uint32_t)to;
		return 0;
	}
	t->lap_limit = t->ring_bytes;
	if (t->fill_wrapped) {
		t->fill_wrapped = 0;
		t->fill_from = 0;
	}
	return 0;
}

/* Writes a THREAD record and a TIME record of time_ns.  Returns 0, or -1
 * when recording stopped. */
static int ring_put_thread_start(struct preload_thread *t, uint64_t time_ns)
{
	uint8_t *p = ring_reserve(t, RING_THREAD_START_BYTES);

	if (!p)
		return -1;
	p = record_put_thread_reused(p, &t->rs, (uint64_t)t->tid);
	ring_commit(t, record_put_time(p, time_ns));
	t->events_until_time = RING_EVENTS_PER_TIME;
	return 0;
}

/* Pads the rest of the lap and starts the next one with THREAD and TIME.
 * The TIME repeats the thread's last: the event that waits here for room
 * took its sequence number before, and a stamp read after the wait would
 * time it, and every thread's events after it, as late as the launcher
 * made room. */
static int ring_next_lap(struct preload_thread *t)
{
	uint32_t pad = t->ring_bytes - t->lap_offset;

	if (ring_ensure_room(t, pad) < 0)
		return -1;
	if (t->lap_limit < t->ring_bytes && ring_fill(t, t->ring_bytes) < 0)
		return -1;
	memset(t->ring + t->lap_offset, TRACE_REC_PAD, pad);
	t->write_pos += pad;
	t->lap_offset = 0;
	/* the lap after the first: what lies before fill_from is not there */
	if (t->fill_from) {
		t->fill_wrapped = 1;
		t->lap_limit = 0;
	}
	atomic_store_explicit(&t->slot->write_pos, t->write_pos, memory_order_release);
	return ring_put_thread_start(t, t->time_written_ns);
}

/* ring_reserve_slow before the stack is scrubbed: whether it waits, fills
 * or starts a lap depends on the launcher's timing. */
static __attribute__((noinline)) uint8_t *ring_reserve_slow_path(struct preload_thread *t,
								  uint32_t need_bytes)
{
	if (need_bytes + RING_THREAD_START_BYTES > t->ring_bytes)
		return NULL;
	if (t->lap_offset + need_bytes > t->ring_bytes && ring_next_lap(t) < 0)
		return NULL;
	if (t->lap_offset + need_bytes > t->lap_limit &&
	    ring_fill(t, t->lap_offset + need_bytes) < 0)
		return NULL;
	if (ring_ensure_room(t, need_bytes) < 0)
		return NULL;
	return t->ring + t->lap_offset;
}

uint8_t *ring_reserve_slow(struct preload_thread *t, uint32_t need_bytes)
{
	uint8_t *p = ring_reserve_slow_path(t, need_bytes);

	preload_stack_scrub();
	return p;
}

int ring_write_thread_start(struct preload_thread *t)
{
	t->time_ticks = ring_ticks();
	t->time_written_ns = ring_now_ns();
	return ring_put_thread_start(t, t->time_written_ns);
}

void ring_write_time(struct preload_thread *t)
{
	uint64_t now_ns;
	uint8_t *p;

	t->events_until_time = RING_EVENTS_PER_TIME;
	t->time_ticks = ring_ticks();
	/* the clock before a wait for room (see ring_next_lap) */
	now_ns = ring_now_ns();
	p = ring_reserve(t, 1 + VARINT_MAX_BYTES);
	if (p) {
		ring_commit(t, record_put_time(p, now_ns));
		t->time_written_ns = now_ns;
	}
}
