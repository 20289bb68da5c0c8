/*
 * preload/control.c - the control word's changes (preload/control.h): start
 * and stop under the control lock, the toggle the signal asks for, and
 * each thread catching up with the word at its next allocator call.
 *
 * Owns the control word and its lock.  Writes CONTROL records only into the
 * calling thread's ring and changes only the calling thread's state.  Must
 * never call malloc.
 */
#include <errno.h>

#include "preload/control.h"
#include "preload/event.h"
#include "preload/lock.h"
#include "preload/ring.h"
#include "preload/sample.h"

/* How many toggles wait, in the low bits of control_toggles_asked. */
#define TOGGLES_ONE 1u
#define TOGGLES_EVEN 2u /* 2, 4, ... */
#define TOGGLES_ODD 3u  /* 3, 5, ... */
#define TOGGLES_MASK 3u
#define TOGGLES_TIME_SHIFT 2

_Atomic uint64_t control_word = CONTROL_RUNNING;
int control_uses_set;
/* The toggles the signal asked for since the last were applied: how many
 * (TOGGLES_*, 0: none) and, above, the CLOCK_MONOTONIC ns when the first
 * was asked (2^62 ns is 146 years of uptime).  One word, so that the count
 * and the time a thread applies always belong together. */
static _Atomic uint64_t control_toggles_asked;
/* When the latest toggle was asked: the time of an even number's second
 * record, which puts recording back as it was. */
static _Atomic uint64_t control_toggle_last_ns;
/* The time of the last CONTROL record written (control lock held): no
 * record is timed before it. */
static uint64_t control_written_ns;
static uint64_t control_rate_at_start;
static struct preload_lock control_lock;

void control_configure(int paused, uint64_t interval_bytes)
{
	if (interval_bytes > CONTROL_RATE_MAX_BYTES)
		interval_bytes = CONTROL_RATE_MAX_BYTES;
	control_rate_at_start = interval_bytes;
	control_uses_set = paused || interval_bytes != 0;
	atomic_store_explicit(&control_toggles_asked, 0, memory_order_relaxed);
	control_written_ns = 0;
	atomic_store_explicit(&control_word,
			      (interval_bytes << CONTROL_RATE_SHIFT) | (paused ? 0 : CONTROL_RUNNING),
			      memory_order_relaxed);
}

uint64_t control_start_rate(void)
{
	return control_rate_at_start;
}

/* A CONTROL record's time from asked_ns, when it was asked (control lock
 * held): never before the record written last, so records in sequence
 * order are in time order too (handlers read the clock before they count
 * their toggle, unordered with the lock). */
static uint64_t control_record_time(uint64_t asked_ns)
{
	if (asked_ns < control_written_ns)
		asked_ns = control_written_ns;
	control_written_ns = asked_ns;
	return asked_ns;
}

/* Applies the toggles the signal asked for (control lock held), each
 * record timed when its toggle was asked: an odd number flips recording at
 * the first one's time; an even number flips it there and back at the
 * last one's, leaving it as it was.  The bit is cleared before the count
 * is taken, so a toggle asked in between sets it again; the flip keeps a
 * bit set meanwhile. */
static void control_toggles_apply(struct preload_thread *t)
{
	uint64_t w, asked, first_ns;

	w = atomic_fetch_and_explicit(&control_word, ~(uint64_t)CONTROL_TOGGLE,
				      memory_order_relaxed);
	asked = atomic_exchange_explicit(&control_toggles_asked, 0, memory_order_relaxed);
	if (!(asked & TOGGLES_MASK))
		return;
	first_ns = control_record_time(asked >> TOGGLES_TIME_SHIFT);
	event_control(t, (unsigned)(~w & CONTROL_RUNNING), control_word_rate(w), first_ns);
	if ((asked & TOGGLES_MASK) == TOGGLES_EVEN) {
		event_control(t, (unsigned)(w & CONTROL_RUNNING), control_word_rate(w),
			      control_record_time(atomic_load_explicit(&control_toggle_last_ns,
								       memory_order_relaxed)));
		return;
	}
	atomic_fetch_xor_explicit(&control_word, CONTROL_RUNNING, memory_order_release);
}

/* Applies the toggles asked for, unless another thread holds the lock (it
 * applies them, or has). */
static void control_apply_toggle(struct preload_thread *t)
{
	if (!preload_lock_try(&control_lock))
		return;
	control_toggles_apply(t);
	preload_lock_give(&control_lock);
}

void control_thread_sync(struct preload_thread *t, uint64_t w)
{
	if (w & CONTROL_TOGGLE) {
		control_apply_toggle(t);
		w = atomic_load_explicit(&control_word, memory_order_relaxed);
	}
	if (control_word_rate(w) != t->sample_interval_bytes || t->control_seen == CONTROL_UNSYNCED)
		sample_thread_rate(t, control_word_rate(w));
	/* a toggle still asked (the lock was busy, or it came since) brings
	 * t back here at its next call */
	t->control_seen = w & ~(uint64_t)CONTROL_TOGGLE;
}

int control_set(struct preload_thread *t, int running, uint64_t interval_bytes)
{
	uint64_t w, next;
	int changed;

	if (interval_bytes > CONTROL_RATE_MAX_BYTES)
		return -EINVAL;
	preload_lock_take(&control_lock);
	/* toggles asked before this call come first, at their own times */
	control_toggles_apply(t);
	w = atomic_load_explicit(&control_word, memory_order_relaxed) & ~(uint64_t)CONTROL_TOGGLE;
	if (running)
		next = (interval_bytes << CONTROL_RATE_SHIFT) | CONTROL_RUNNING;
	else
		next = w & ~(uint64_t)CONTROL_RUNNING;
	changed = next != w;
	/* the record before the word: a thread that sees the new word
	 * records after it */
	if (changed)
		event_control(t, (unsigned)(next & CONTROL_RUNNING), control_word_rate(next),
			      control_record_time(ring_now_ns()));
	atomic_store_explicit(&control_word, next, memory_order_release);
	/* a toggle asked since control_toggles_apply keeps its bit */
	if (atomic_load_explicit(&control_toggles_asked, memory_order_relaxed))
		atomic_fetch_or_explicit(&control_word, CONTROL_TOGGLE, memory_order_relaxed);
	preload_lock_give(&control_lock);
	return changed;
}

/* The count of toggles after one more (TOGGLES_*). */
static uint64_t control_toggles_next(uint64_t count)
{
	return count == TOGGLES_EVEN ? TOGGLES_ODD : TOGGLES_EVEN;
}

void control_request_toggle(void)
{
	uint64_t now_ns = ring_now_ns();
	uint64_t asked = atomic_load_explicit(&control_toggles_asked, memory_order_relaxed);
	uint64_t next;

	atomic_store_explicit(&control_toggle_last_ns, now_ns, memory_order_relaxed);
	do {
		if (asked & TOGGLES_MASK)
			next = (asked & ~(uint64_t)TOGGLES_MASK) |
			       control_toggles_next(asked & TOGGLES_MASK);
		else
			next = (now_ns << TOGGLES_TIME_SHIFT) | TOGGLES_ONE;
	} while (!atomic_compare_exchange_weak_explicit(&control_toggles_asked, &asked, next,
						       memory_order_relaxed,
						       memory_order_relaxed));
	atomic_fetch_or_explicit(&control_word, CONTROL_TOGGLE, memory_order_relaxed);
}

void control_fork_prepare(void)
{
	preload_lock_take(&control_lock);
}

void control_fork_release(void)
{
	preload_lock_give(&control_lock);
}
