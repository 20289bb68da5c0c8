/*
 * preload/event.h - turning one allocator call into records: sequence
 * numbers, the call stack and the ALLOC / FREE / REALLOC / SEQ_SKIP record
 * in the calling thread's ring.
 */
#ifndef MPROF_PRELOAD_EVENT_H
#define MPROF_PRELOAD_EVENT_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "preload/real.h"
#include "preload/seq.h"
#include "preload/thread.h"

/* Takes the next sequence number of the process (dense, from 1) and
 * publishes it in the slot (session.h taken_seq, taking), so that a number
 * whose record the process's end prevents is not a gap in the trace. */
static inline uint64_t event_seq_next(struct preload_thread *t)
{
	struct session_slot *slot = t->slot;
	uint64_t seq;

	if (__builtin_expect(slot != NULL, 1))
		atomic_store_explicit(&slot->taking, t->last_seq + 1, memory_order_relaxed);
	seq = seq_take(t);
	/* the two entries in turn: a realloc's two numbers are apart by the
	 * other threads' in between, so their parities may be the same */
	if (__builtin_expect(slot != NULL, 1))
		atomic_store_explicit(&slot->taken_seq[t->taken_next], seq, memory_order_relaxed);
	t->taken_next ^= 1;
	t->last_seq = seq;
	return seq;
}

/* A successful allocation of size_bytes (requested) at p by entry point fn
 * (enum trace_alloc_fn), standing for weight allocations (1 in exact mode,
 * preload/sample.h), called from caller_ip; caller_cfa is the entry
 * point's CFA (caller_ip lies at caller_cfa - 8), for the unwinder's
 * shortcut (preload/unwind.h).  Takes its own seq. */
void event_alloc(struct preload_thread *t, unsigned fn, const void *p, size_t size_bytes,
		 uint64_t weight, void *caller_ip, void *caller_cfa);

/*
 * The size class (record_size_class) of p's usable size, read from glibc's
 * chunk header while p is still allocated; -1 with another allocator
 * (real_chunk_bytes).  The shim names blocks explicitly and keeps no block
 * history; the launcher re-encodes its records with references
 * (trace/recode.h), and this class lets the allocation that reuses the
 * chunk be a reference too.
 */
static inline int event_free_class(const void *p)
{
	size_t chunk_bytes = real_chunk_bytes(p);

	return chunk_bytes ? record_size_class(chunk_bytes - 8) : -1;
}

/* The release of p (fn: enum trace_free_fn) at seq, taken before the real
 * free, with its size class (event_free_class). */
void event_free(struct preload_thread *t, unsigned fn, uint64_t seq, const void *p,
		int size_class);

/* A successful realloc of old_p into new_p (size_bytes, of weight
 * allocations); seq_free and old_size_class were taken before the real
 * call, the alloc part's seq is taken here. */
void event_realloc(struct preload_thread *t, unsigned fn, uint64_t seq_free, const void *old_p,
		   int old_size_class, const void *new_p, size_t size_bytes, uint64_t weight,
		   void *caller_ip, void *caller_cfa);

/* seq was taken but no event happened (a failed realloc). */
void event_seq_skip(struct preload_thread *t, uint64_t seq);

/* A CONTROL record: recording started (running 1, at interval_bytes, 0:
 * every allocation) or stopped (0) at time_ns (CLOCK_MONOTONIC: when it was
 * asked, which may be before now), at a fresh seq of its own. */
void event_control(struct preload_thread *t, unsigned running, uint64_t interval_bytes,
		   uint64_t time_ns);

/* An UNRECORDING record, now, at a fresh seq of its own: the process
 * allocates without recording from here on (preload/thread.c). */
void event_unrecording(struct preload_thread *t);

/* A MARKER record named by the len bytes at name (at most
 * EVENT_MARKER_NAME_MAX, no NUL), now, at a fresh seq of its own. */
#define EVENT_MARKER_NAME_MAX 255u
void event_marker(struct preload_thread *t, const char *name, size_t len);

#endif
