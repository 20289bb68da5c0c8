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
 * A seccomp filter may refuse membarrier (EPERM, ENOSYS).  So nobody owns
 * the counter under a filter the recorder knows of (preload/seccomp_watch.h),
 * and the program's own install takes it from its owner first
 * (seq_disown).  When membarrier fails all the same (a filter installed by
 * the program's own system call instruction), the revoker waits a grace
 * period instead, much longer than a store stays in a core's store buffer
 * (nanoseconds), so the owner's busy flag is visible by then, and says so
 * in the process header: a barrier-free scheme that is not guaranteed by
 * the memory model, only by the hardware's practice.
 *
 * Owns seq_owner and the revoke lock (taken once per process, by the first
 * second thread).  Must never call malloc.
 */
#define _GNU_SOURCE
#include <linux/membarrier.h>
#include <errno.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "preload/clock.h"
#include "preload/diag.h"
#include "preload/lock.h"
#include "preload/seccomp_watch.h"
#include "preload/seq.h"
#include "preload/text.h"
#include "preload/wait.h"

/* The wait that stands in for a refused membarrier (once per process; the
 * note below says 10 ms). */
#define SEQ_GRACE_NS 10000000ull

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

static uint64_t seq_now_ns(void)
{
	struct timespec ts;

	preload_clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* membarrier failed with err: waits SEQ_GRACE_NS for the owner's stores to
 * drain and notes it (in the header only: the caller may be inside an
 * event). */
static void seq_grace_period(int err)
{
	char text[320] = "membarrier() was refused (";
	uint64_t start = seq_now_ns();

	while (seq_now_ns() - start < SEQ_GRACE_NS)
		preload_yield();
	preload_text_append(text, sizeof(text),
			    err == EPERM ? "EPERM" : err == ENOSYS ? "ENOSYS" : "an error");
	preload_text_append(text, sizeof(text),
			    "), as a seccomp filter the recorder did not see installed may do: "
			    "a second thread took over the sequence counter after a 10 ms wait "
			    "instead of a memory barrier, so the order of the events at that "
			    "moment rests on the hardware's practice, not on a guarantee");
	diag_note(TRACE_DIAG_INFO, text);
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
		int saved_errno = errno; /* the program's: this runs inside its call */

		atomic_store(&seq_owner, NULL);
		if (seq_membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) < 0)
			seq_grace_period(errno);
		errno = saved_errno;
		while (atomic_load_explicit(&owner->seq_busy, memory_order_acquire)) {
			if (++spins < 100)
				preload_cpu_relax();
			else
				preload_yield();
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

void seq_disown(void)
{
	if (!atomic_load_explicit(&seq_shared, memory_order_acquire))
		seq_revoke();
}

void seq_own(struct preload_thread *t)
{
	int supported;

	if (seccomp_watch_filtered())
		return;
	supported = seq_membarrier(MEMBARRIER_CMD_QUERY);
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
