/*
 * preload/lock.h - the shim's only lock: a small test-and-test-and-set
 * spinlock that yields the CPU while it waits.
 *
 * It guards rare, short sections (stack-table inserts, the thread-state pool,
 * module-map publication), never the per-event hot path.  It must never be
 * held across a call that can wait for another thread of the target (the
 * dynamic loader, the allocator), and it needs no initialisation beyond zero,
 * so a fork child can reset it by storing 0.
 */
#ifndef MPROF_PRELOAD_LOCK_H
#define MPROF_PRELOAD_LOCK_H

#include <sched.h>
#include <stdatomic.h>

struct preload_lock {
	_Atomic int held;
};

/* Lets a waiting CPU breathe without giving up its time slice. */
static inline void preload_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#else
	atomic_signal_fence(memory_order_seq_cst);
#endif
}

/* Takes the lock: spins briefly, then yields until it is free. */
static inline void preload_lock_take(struct preload_lock *l)
{
	unsigned spins = 0;

	while (atomic_exchange_explicit(&l->held, 1, memory_order_acquire)) {
		while (atomic_load_explicit(&l->held, memory_order_relaxed)) {
			if (++spins < 100)
				preload_cpu_relax();
			else
				sched_yield();
		}
	}
}

/* Takes l if it is free, without waiting: 1 when taken, 0 when another
 * thread holds it. */
static inline int preload_lock_try(struct preload_lock *l)
{
	return !atomic_exchange_explicit(&l->held, 1, memory_order_acquire);
}

static inline void preload_lock_give(struct preload_lock *l)
{
	atomic_store_explicit(&l->held, 0, memory_order_release);
}

/* Fork child only: the threads that could hold the lock do not exist. */
static inline void preload_lock_reset(struct preload_lock *l)
{
	atomic_store_explicit(&l->held, 0, memory_order_relaxed);
}

#endif
