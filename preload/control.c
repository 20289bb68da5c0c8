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
#include "preload/sample.h"

_Atomic uint64_t control_word = CONTROL_RUNNING;
int control_uses_set;
/* Toggles the signal asked for since the last one was applied: an even
 * number changes nothing (a start and a stop sent to an idle program). */
static _Atomic unsigned control_toggles_asked;
static uint64_t control_rate_at_start;
static struct preload_lock control_lock;

void control_configure(int paused, uint64_t interval_bytes)
{
	if (interval_bytes > CONTROL_RATE_MAX_BYTES)
		interval_bytes = CONTROL_RATE_MAX_BYTES;
	control_rate_at_start = interval_bytes;
	control_uses_set = paused || interval_bytes != 0;
	atomic_store_explicit(&control_word,
			      (interval_bytes << CONTROL_RATE_SHIFT) | (paused ? 0 : CONTROL_RUNNING),
			      memory_order_relaxed);
}

uint64_t control_start_rate(void)
{
	return control_rate_at_start;
}

/* Writes w's CONTROL record into t's ring, then stores w (control lock
 * held).  A thread that read the old word just before may still record
 * the call it is in after the record (at a later seq). */
static void control_publish(struct preload_thread *t, uint64_t w)
{
	event_control(t, (unsigned)(w & CONTROL_RUNNING), control_word_rate(w));
	atomic_store_explicit(&control_word, w, memory_order_release);
}

/* Applies the toggles the signal asked for, unless another thread holds
 * the lock (it applies them, or has): recording flips when their number is
 * odd.  The bit is cleared before the count is taken, so a toggle asked in
 * between sets it again; the flip keeps a bit set meanwhile. */
static void control_apply_toggle(struct preload_thread *t)
{
	uint64_t w;
	unsigned asked;

	if (!preload_lock_try(&control_lock))
		return;
	w = atomic_fetch_and_explicit(&control_word, ~(uint64_t)CONTROL_TOGGLE,
				      memory_order_relaxed);
	asked = atomic_exchange_explicit(&control_toggles_asked, 0, memory_order_relaxed);
	if (asked & 1) {
		event_control(t, (unsigned)(~w & CONTROL_RUNNING), control_word_rate(w));
		atomic_fetch_xor_explicit(&control_word, CONTROL_RUNNING, memory_order_release);
	}
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
	t->control_seen = w;
}

int control_set(struct preload_thread *t, int running, uint64_t interval_bytes)
{
	uint64_t w, next;
	int changed;

	if (interval_bytes > CONTROL_RATE_MAX_BYTES)
		return -EINVAL;
	preload_lock_take(&control_lock);
	w = atomic_load_explicit(&control_word, memory_order_relaxed) & ~(uint64_t)CONTROL_TOGGLE;
	if (running)
		next = (interval_bytes << CONTROL_RATE_SHIFT) | CONTROL_RUNNING;
	else
		next = w & ~(uint64_t)CONTROL_RUNNING;
	changed = next != w;
	atomic_store_explicit(&control_toggles_asked, 0, memory_order_relaxed);
	if (changed)
		control_publish(t, next);
	else
		atomic_store_explicit(&control_word, next, memory_order_release);
	preload_lock_give(&control_lock);
	return changed;
}

void control_request_toggle(void)
{
	atomic_fetch_add_explicit(&control_toggles_asked, 1, memory_order_relaxed);
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
