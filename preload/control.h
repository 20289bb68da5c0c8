/*
 * preload/control.h - runtime start and stop of recording (`mprof run
 * --paused`, the toggle signal, the mprof.h API): the process's control
 * word and each thread's view of it.
 *
 * The control word packs whether recording is on, a toggle the signal
 * handler asked for, and the sampling interval in force.  It changes only
 * under the control lock (or by the handler's atomic OR of the toggle
 * bit, beside its count and time of the toggles asked); a thread reads it
 * with one relaxed load per recorded call and, when it differs from the
 * copy it last acted on, brings its own state up to date (its sampler's
 * interval and countdown).  No thread ever reads or
 * writes another thread's state: a change reaches each thread at its next
 * allocator call.
 *
 * Frees of blocks recorded before a stop stay matched in one of two ways,
 * fixed for the process image at start:
 *   set mode (a run started --paused or sampled): every recorded block
 *     enters the set of recorded blocks (preload/sample_set.h), and a free
 *     is recorded exactly when its block is in the set, running or not;
 *     a paused free costs a hash and one load of the set's bitmap.
 *   log mode (an exact run started recording): every free is recorded,
 *     running or not (a FREE record without a stack); frees of blocks
 *     allocated while stopped are unmatched frees for the analyzer.
 */
#ifndef MPROF_PRELOAD_CONTROL_H
#define MPROF_PRELOAD_CONTROL_H

#include <stdatomic.h>
#include <stdint.h>

#include "preload/thread.h"
#include "trace/session.h"

#define CONTROL_RUNNING 1u              /* recording is on */
#define CONTROL_TOGGLE 2u               /* the signal asked for a toggle */
#define CONTROL_RATE_SHIFT 2            /* the interval (bytes, 0: exact) above */
#define CONTROL_RATE_MAX_BYTES SESSION_SAMPLE_RATE_MAX_BYTES
/* A thread's copy before its first sync: no word equals it. */
#define CONTROL_UNSYNCED UINT64_MAX

/* The control word (see above). */
extern _Atomic uint64_t control_word;

/* 1 in set mode, 0 in log mode; fixed before any thread records. */
extern int control_uses_set;

/* The interval in bytes of word w (0: every allocation). */
static inline uint64_t control_word_rate(uint64_t w)
{
	return w >> CONTROL_RATE_SHIFT;
}

/*
 * Sets the word at start: recording on unless paused, at interval_bytes
 * (0: exact), and the free-matching mode.  Called by the initializer
 * before any thread records.
 */
void control_configure(int paused, uint64_t interval_bytes);

/* The slow part of control_recording: applies a requested toggle (when the
 * lock is free; else t comes back at its next call) and takes the word's
 * interval into t's sampler. */
void control_thread_sync(struct preload_thread *t, uint64_t w);

/*
 * Whether t records the call it is in: one relaxed load and a compare
 * when nothing changed since t's last call.  Only touches t.
 */
static inline int control_recording(struct preload_thread *t)
{
	uint64_t w = atomic_load_explicit(&control_word, memory_order_relaxed);

	if (__builtin_expect(w != t->control_seen, 0))
		control_thread_sync(t, w);
	return (int)(t->control_seen & CONTROL_RUNNING);
}

/*
 * Starts (running 1) or stops (0) recording at interval_bytes (0: exact;
 * ignored when stopping) and writes a CONTROL record, timed now, into t's
 * ring; t is the calling thread's state, busy.  Toggles the signal asked
 * for before are applied first (their records, at their own times, come
 * before).  Returns 1 when the state changed, 0 when it already was so (no
 * record), -EINVAL for an interval beyond CONTROL_RATE_MAX_BYTES (its
 * samples' weights would not fit), changing nothing.
 */
int control_set(struct preload_thread *t, int running, uint64_t interval_bytes);

/* The run's own interval, from its start (0: exact). */
uint64_t control_start_rate(void);

/*
 * Async-signal-safe: asks for a toggle, which the next thread to call the
 * allocator applies (control_thread_sync); toggles asked before it count
 * each, so two leave recording as it was.  Its CONTROL record is timed now,
 * when it is asked, not when it is applied: a server idle after a stop was
 * not recording while idle.  A clock read, an atomic store, a
 * compare-and-swap loop and an atomic OR.
 */
void control_request_toggle(void);

/* Fork: prepare takes the control lock, parent and child give it back. */
void control_fork_prepare(void);
void control_fork_release(void);

#endif
