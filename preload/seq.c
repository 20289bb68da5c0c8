/*
 * preload/seq.c - revoking a thread's ownership of the sequence counter
 * (seq.h).
 *
 * The owner's fast path stores its busy flag, then loads seq_owner, with
 * only a compiler barrier between them; the revoker stores seq_owner = NULL,
 * then calls membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED), which runs a
 * full memory barrier on every running thread of the process, then loads
 * the owner's busy flag.  So either the owner's load comes after the barrier
 * and sees NULL (it takes the shared path), or its busy store is visible
 * when membarrier returns and the revoker waits for it to clear; the
 * owner's last counter store is released by that clear.  The same scheme as
 * user-space RCU's membarrier flavour.
 *
 * Owns seq_owner and the revoke lock (taken once per process, by the first
 * second thread).  Must never call malloc.
 */
#define _GNU_SOURCE
#include <linux/membarrier.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload/lock.h"
#include "preload/seq.h"

_Atomic(struct preload_thread *) seq_owner;
static struct preload_lock seq_revoke_lock;
/* 1 once no owner can be incrementing: set by the revoker after the owner's
 * last plain store is visible.  seq_owner == NULL alone does not say so: a
 * third thread that saw it while the revoker still waited for the owner's
 * busy flag added concurrently with the owner's plain increment, and both
 * got the same number. */
static _Atomic int seq_shared;

static int seq_membarrier(int cmd)
{
	return (int)syscall(SYS_membarrier, cmd, 0, 0);
}

/* Takes the counter from its owner: after this, nobody increments it
 * without an atomic add. */
static void seq_revoke(void)
{
	struct preload_thread *owner;
	unsigned spins = 0;

	preload_lock_take(&seq_revoke_lock);
	owner = atomic_load(&seq_owner);
	if (owner) {
		atomic_store(&seq_owner, NULL);
		seq_membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED);
		while (atomic_load_explicit(&owner->seq_busy, memory_order_acquire)) {
			if (++spins < 100)
				preload_cpu_relax();
			else
				sched_yield();
		}
	}
	atomic_store_explicit(&seq_shared, 1, memory_order_release);
	preload_lock_give(&seq_revoke_lock);
}

uint64_t seq_take_shared(struct preload_thread *t)
{
	(void)t;
	if (!atomic_load_explicit(&seq_shared, memory_order_acquire))
		seq_revoke();
	return atomic_fetch_add_explicit(&preload_proc.hdr->seq, 1, memory_order_relaxed) + 1;
}

void seq_own(struct preload_thread *t)
{
	int supported = seq_membarrier(MEMBARRIER_CMD_QUERY);

	if (supported < 0 || !(supported & MEMBARRIER_CMD_PRIVATE_EXPEDITED) ||
	    seq_membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) < 0)
		return;
	atomic_store(&seq_shared, 0);
	atomic_store(&seq_owner, t);
}

void seq_forget(struct preload_thread *t)
{
	struct preload_thread *owner = t;

	atomic_compare_exchange_strong(&seq_owner, &owner, NULL);
}

void seq_fork_child(void)
{
	preload_lock_reset(&seq_revoke_lock);
	atomic_store(&seq_owner, NULL);
	atomic_store(&seq_shared, 1);
}
