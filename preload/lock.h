/*
 * preload/lock.h - the shim's only lock: a small test-and-test-and-set
 * spinlock that yields the CPU while it waits (preload/wait.h).
 *
 * It guards rare, short sections (stack-table inserts, the thread-state pool,
 * module-map publication), never the per-event hot path.  It must never be
 * held across a call that can wait for another thread of the target (the
 * dynamic loader, the allocator), and it needs no initialisation beyond zero,
 * so a fork child can reset it by storing 0.
 *
 * Once the program made a thread cancelable asynchronously, the holder is
 * made cancelable only at cancellation points (of which the recorder calls
 * none) until it gives the lock back: a thread cancelled asynchronously
 * would otherwise end holding it, and every other thread would wait for it
 * forever.  The type, not the state: glibc 2.36's cancel signal handler
 * acts on an asynchronous thread whose cancellation was disabled after
 * pthread_cancel sent it.  (Two atomic operations per lock section, tens
 * of ns a malloc/free pair when every allocation is sampled, so only then.)
 */
#ifndef MPROF_PRELOAD_LOCK_H
#define MPROF_PRELOAD_LOCK_H

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

#include "preload/cancel_watch.h"
#include "preload/wait.h"

struct preload_lock {
	_Atomic int held;
	/* the holder's cancelability type before it took the lock, or -1
	 * when it left it alone */
	int cancel_type;
};

/* Makes the calling thread cancelable only at cancellation points when the
 * program made some thread cancelable asynchronously; returns the type to
 * restore, or -1. */
static inline int preload_lock_cancel_defer(void)
{
	int cancel_type = -1;

	if (__builtin_expect(atomic_load_explicit(&cancel_watch_async_seen, memory_order_relaxed), 0) &&
	    cancel_watch_set_type(PTHREAD_CANCEL_DEFERRED, &cancel_type) != 0)
		cancel_type = -1;
	return cancel_type;
}

/* Restores what preload_lock_cancel_defer returned: a cancel that came
 * meanwhile to an asynchronously cancelable thread acts now (the C
 * library's pthread_setcanceltype). */
static inline void preload_lock_cancel_restore(int cancel_type)
{
	if (cancel_type == PTHREAD_CANCEL_ASYNCHRONOUS)
		cancel_watch_set_type(cancel_type, NULL);
}

/* Takes the lock: spins briefly, then yields until it is free.  The
 * calling thread's cancellation is deferred until preload_lock_give (see
 * above). */
static inline void preload_lock_take(struct preload_lock *l)
{
	unsigned spins = 0;
	int cancel_type = preload_lock_cancel_defer();

	while (atomic_exchange_explicit(&l->held, 1, memory_order_acquire)) {
		while (atomic_load_explicit(&l->held, memory_order_relaxed)) {
			if (++spins < 100)
				preload_cpu_relax();
			else
				preload_yield();
		}
	}
	l->cancel_type = cancel_type;
}

/* Takes l if it is free, without waiting: 1 when taken (cancellation
 * deferred as preload_lock_take defers it), 0 when another thread holds it. */
static inline int preload_lock_try(struct preload_lock *l)
{
	int cancel_type = preload_lock_cancel_defer();

	if (atomic_exchange_explicit(&l->held, 1, memory_order_acquire)) {
		preload_lock_cancel_restore(cancel_type);
		return 0;
	}
	l->cancel_type = cancel_type;
	return 1;
}

/* Gives the lock back, then restores the cancelability it deferred. */
static inline void preload_lock_give(struct preload_lock *l)
{
	int cancel_type = l->cancel_type;

	atomic_store_explicit(&l->held, 0, memory_order_release);
	preload_lock_cancel_restore(cancel_type);
}

/* Fork child only: the threads that could hold the lock do not exist.  A
 * deferred cancelability is not restored: the child's fork handler gives
 * the lock the prepare handler took first (control_lock), which restores
 * the forking thread's. */
static inline void preload_lock_reset(struct preload_lock *l)
{
	atomic_store_explicit(&l->held, 0, memory_order_relaxed);
}

#endif
