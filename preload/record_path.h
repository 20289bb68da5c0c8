/*
 * preload/record_path.h - the decisions every allocating entry point of the
 * shim shares (interpose.c's allocator API, new_wrap.c's operator new):
 * whether an allocation is surely not recorded (the fast path), and the
 * record of one that may be.  Hot path: touches the calling thread's state
 * and the control word only; never allocates.
 */
#ifndef MPROF_PRELOAD_RECORD_PATH_H
#define MPROF_PRELOAD_RECORD_PATH_H

#include <stddef.h>
#include <stdint.h>

#include "preload/control.h"
#include "preload/event.h"
#include "preload/sample.h"
#include "preload/sample_set.h"
#include "preload/thread.h"

/*
 * Whether an allocation of size_bytes is recorded, and its weight (0: not
 * recorded): nothing while recording is stopped (preload/control.h), else
 * what the sampler says.  Only touches t.
 */
static inline uint64_t interpose_weight(struct preload_thread *t, size_t size_bytes)
{
	if (__builtin_expect(!control_recording(t), 0))
		return 0;
	return sample_weight(t, size_bytes);
}

/*
 * Records the allocation of size_bytes at p, or not: while recording is
 * stopped nothing; in sampled mode only the sampled ones.  In set mode a
 * recorded block enters the set of recorded blocks first (a block the set
 * has no room for is not recorded, so its free needs no record).
 */
static inline void interpose_alloc_record(struct preload_thread *t, unsigned fn, const void *p,
					  size_t size_bytes, void *caller_ip, void *caller_cfa)
{
	uint64_t weight = interpose_weight(t, size_bytes);

	if (!weight || (control_uses_set && sample_set_insert(p) < 0))
		return;
	event_alloc(t, fn, p, size_bytes, weight, caller_ip, caller_cfa);
}

/* interpose_alloc_record of an allocation whose caller's rbp (caller_bp,
 * when caller_bp_known) is lent to the call-site cache while it records
 * (preload/stack_sites.h). */
static inline void interpose_alloc_record_bp(struct preload_thread *t, unsigned fn, const void *p,
					     size_t size_bytes, void *caller_ip, void *caller_cfa,
					     uint64_t caller_bp, int caller_bp_known)
{
	if (caller_bp_known) {
		t->entry_bp = caller_bp;
		t->entry_bp_cfa = (uintptr_t)caller_cfa;
	}
	interpose_alloc_record(t, fn, p, size_bytes, caller_ip, caller_cfa);
	t->entry_bp_cfa = 0;
}

/*
 * Records p, an allocation of size_bytes that entry point fn made for the
 * caller at caller_ip/caller_cfa (its rbp caller_bp, when caller_bp_known)
 * while the thread held nothing of the recorder's (an allocator's own
 * operator new, the C library's realloc of a fallback block): enters the
 * thread, records, leaves; where the thread cannot record now, counts the
 * allocation unrecorded.
 */
static inline void record_path_alloc_after(unsigned fn, const void *p, size_t size_bytes,
					   void *caller_ip, void *caller_cfa, uint64_t caller_bp,
					   int caller_bp_known)
{
	struct preload_thread *t = preload_thread_enter();

	if (!t) {
		preload_count_unrecorded(0);
		return;
	}
	interpose_alloc_record_bp(t, fn, p, size_bytes, caller_ip, caller_cfa, caller_bp,
				  caller_bp_known);
	preload_thread_leave(t);
}

/*
 * Whether an allocation of size_bytes is surely not recorded, decided on the
 * fast path: recording is stopped, or the sampler's countdown has room for
 * it (then taken), and the control word has nothing new to apply.  The call
 * then goes straight to the C library, t not marked busy (nothing of the
 * shim's is held meanwhile).  0: the full path decides.  Only touches t.
 */
static inline int interpose_unrecorded(struct preload_thread *t, size_t size_bytes)
{
	uint64_t w = atomic_load_explicit(&control_word, memory_order_relaxed);
	uint64_t k = size_bytes + 1;

	if (__builtin_expect(w != t->control_seen, 0))
		return 0;
	if (!(w & CONTROL_RUNNING))
		return 1;
	if (t->sample_interval_bytes && k != 0 && k <= t->sample_countdown) {
		t->sample_countdown -= k;
		return 1;
	}
	return 0;
}

/* interpose_unrecorded for the calling thread's t, when t may take a fast
 * path at all (preload_thread_usable). */
static inline int interpose_fast(struct preload_thread *t, size_t size_bytes)
{
	return __builtin_expect(preload_thread_usable(t), 1) && interpose_unrecorded(t, size_bytes);
}

#endif
