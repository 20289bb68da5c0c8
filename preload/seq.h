/*
 * preload/seq.h - taking the process's sequence numbers (trace/session.h:
 * dense, one counter in the process file's header).
 *
 * While a single thread records, it owns the counter and takes numbers with
 * a plain load and store; the first other thread that needs one revokes
 * the ownership (preload/seq.c), and from then on every thread uses an
 * atomic add.  Numbers stay dense and unique either way.
 */
#ifndef MPROF_PRELOAD_SEQ_H
#define MPROF_PRELOAD_SEQ_H

#include <stdatomic.h>
#include <stdint.h>

#include "preload/thread.h"

/* The thread that owns the counter, or NULL: shared (atomic adds). */
extern _Atomic(struct preload_thread *) seq_owner;

/* The shared path of seq_take: revokes the ownership first if another
 * thread holds it, then adds atomically. */
uint64_t seq_take_shared(struct preload_thread *t);

/*
 * Takes the next sequence number of the process (from 1) for t.  The owner
 * announces itself busy, looks at the owner again and increments without a
 * locked instruction; the revoker's membarrier() makes that check and the
 * busy flag a Dekker pair (see preload/seq.c).  Measured on a malloc+free
 * loop at depth 17 (medians of 5): 58.3 ns per pair with locked adds, 53.8
 * without.
 */
static inline uint64_t seq_take(struct preload_thread *t)
{
	_Atomic uint64_t *counter = &preload_proc.hdr->seq;
	uint64_t seq;

	if (atomic_load_explicit(&seq_owner, memory_order_relaxed) != t)
		return seq_take_shared(t);
	atomic_store_explicit(&t->seq_busy, 1, memory_order_relaxed);
	atomic_signal_fence(memory_order_seq_cst);
	if (atomic_load_explicit(&seq_owner, memory_order_relaxed) != t) {
		atomic_store_explicit(&t->seq_busy, 0, memory_order_relaxed);
		return seq_take_shared(t);
	}
	seq = atomic_load_explicit(counter, memory_order_relaxed) + 1;
	atomic_store_explicit(counter, seq, memory_order_relaxed);
	atomic_store_explicit(&t->seq_busy, 0, memory_order_release);
	return seq;
}

/*
 * Makes t the owner when the kernel offers private expedited membarrier
 * (registered here) and no seccomp filter is known, which could refuse it
 * later; otherwise every thread adds atomically.  Called by the
 * initializer for its thread, and in a fork child (after seq_fork_child)
 * for the forking thread.
 */
void seq_own(struct preload_thread *t);

/* The program is about to install a seccomp filter: takes the counter from
 * its owner while membarrier still works; every thread adds atomically from
 * then on. */
void seq_disown(void);

/* t's state is being retired or recycled: it owns the counter no more (its
 * thread is not taking a number meanwhile). */
void seq_forget(struct preload_thread *t);

/* Fork child: the threads that could hold the revoke lock do not exist,
 * and the kernel's membarrier registration was not inherited. */
void seq_fork_child(void);

#endif
