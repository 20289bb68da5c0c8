/*
 * preload/event.c - the recording side of each allocator call: captures
 * the call stack, interns it (writing STACK records for new nodes into the
 * meta stream first) and writes the event record into the calling thread's
 * ring.
 *
 * Owns no state of its own.  Runs with the thread marked busy, so a signal
 * handler that allocates meanwhile is served unrecorded (and counted);
 * what libunwind allocates is an own call's (preload/own_call.h).  Must
 * never call malloc.
 */
#include <errno.h>

#include "preload/event.h"
#include "preload/meta.h"
#include "preload/modules.h"
#include "preload/ring.h"
#include "preload/stack_scrub.h"
#include "preload/stack_sites.h"
#include "preload/stack_table.h"
#include "preload/unwind.h"

#define EVENT_STACK_RECORD_BYTES (1 + 3 * VARINT_MAX_BYTES)

/* Writes the STACK records of the nodes the last intern created into the
 * meta stream (preload/meta.h). */
static void event_write_new_nodes(struct preload_thread *t)
{
	struct preload_thread *m;

	if (!t->new_count)
		return;
	m = meta_begin();
	for (uint32_t i = 0; m && i < t->new_count; i++) {
		const struct stack_new_node *n = &t->new_nodes[i];
		uint8_t *p = ring_reserve(m, EVENT_STACK_RECORD_BYTES);

		if (!p)
			break;
		ring_commit(m, record_put_stack(p, &m->rs, n->id, n->parent, n->ip));
	}
	if (m)
		meta_end(m);
	t->new_count = 0;
}

/*
 * Captures and interns the current call stack; returns its leaf id (0 when
 * it could not be interned).  site_id: what the call-site cache found (0:
 * nothing; otherwise check mode, which compares it with the capture).  The
 * module map is brought up to date first when a dlclose happened, and
 * again if a new node has an unknown address.
 */
static inline uint64_t event_stack_capture_here(struct preload_thread *t, void *caller_ip,
						void *caller_cfa, uint64_t site_id)
{
	int truncated;
	uint32_t depth;
	uint64_t id = 0;

	if (t->captures < UINT32_MAX)
		t->captures++;
	depth = unwind_capture(t, caller_ip, caller_cfa, &truncated);
	t->new_count = 0;
	if (atomic_load_explicit(&modules_dirty, memory_order_acquire))
		modules_refresh_moved(t);
	for (int attempt = 0; attempt < 3; attempt++) {
		uint64_t root_key = 2 * modules_epoch() + (uint64_t)truncated;

		id = stack_table_intern(t, depth, root_key, attempt < 2);
		if (id != STACK_TABLE_RESTART)
			break;
		id = 0;
	}
	event_write_new_nodes(t);
	if (site_id)
		unwind_check_count_reuse(site_id != id, 1);
	else if (id)
		stack_sites_store(t, caller_ip, caller_cfa, depth, id);
	return id;
}

/* event_stack_capture_here, noting whether the call came from a stack other
 * than the thread's own (a coroutine's, a signal stack): there the walk
 * reads only pages it checked, and what needs more stack than the walk
 * itself (libunwind, a CFI parse, a module scan) runs on the recorder's
 * stack, as it does everywhere. */
static __attribute__((noinline)) uint64_t event_stack_capture(struct preload_thread *t,
								void *caller_ip,
								void *caller_cfa,
								uint64_t site_id)
{
	uint64_t id;

	t->capture_off_stack = !unwind_on_own_stack(t);
	id = event_stack_capture_here(t, caller_ip, caller_cfa, site_id);
	t->capture_off_stack = 0;
	return id;
}

/* Zeroes the stack a capture used, from where its frames began
 * (preload/stack_scrub.h), when the thread's own stack is known to hold
 * it: not on a coroutine's or a signal stack, which may have less left.
 * Out of line: reading the frame address in the entry point gave every
 * call a frame pointer. */
static __attribute__((noinline, cold)) void event_stack_scrub(struct preload_thread *t)
{
	if (unwind_stack_room(t, (uintptr_t)__builtin_frame_address(0),
			      PRELOAD_STACK_SCRUB_DEEP_BYTES))
		preload_stack_scrub_deep(&t->scrub_known);
}

/*
 * The leaf id of the current call stack: a stack the thread cached for this
 * call site and finds again on the live stack is used as it is (in check
 * mode, it is compared with a full capture); otherwise it is captured.
 * (Inline, with the capture out of line: a call and its saved registers
 * were 26 instructions of every allocation, python3.)
 */
static inline uint64_t event_stack_id(struct preload_thread *t, void *caller_ip, void *caller_cfa)
{
	uint64_t site_id = stack_sites_find(t, caller_ip, caller_cfa);
	uint64_t id;

	if (__builtin_expect(site_id != 0, 1) && !unwind_checking())
		return site_id;
	id = event_stack_capture(t, caller_ip, caller_cfa, site_id);
	event_stack_scrub(t);
	return id;
}

/* Times the event t records next: a sampled one always (samples are few),
 * an exact one when the thread's event clock moved a grain (ring_time_fresh). */
static inline void event_time(struct preload_thread *t)
{
	if (t->sample_interval_bytes)
		ring_write_time(t);
	else
		ring_time_fresh(t);
}

void event_alloc(struct preload_thread *t, unsigned fn, const void *p, size_t size_bytes,
		 uint64_t weight, void *caller_ip, void *caller_cfa)
{
	int saved_errno = *t->errno_ptr;
	uint64_t seq = event_seq_next(t);
	uint64_t stack_id = event_stack_id(t, caller_ip, caller_cfa);
	uint8_t *w;

	event_time(t);
	w = ring_reserve(t, RECORD_MAX_BYTES);

	if (w) {
		w = record_put_alloc_explicit(w, &t->rs, fn, seq, (uintptr_t)p, size_bytes, stack_id,
					      weight);
		ring_commit(t, w);
		ring_count_event(t);
	}
	*t->errno_ptr = saved_errno;
}

void event_free(struct preload_thread *t, unsigned fn, uint64_t seq, const void *p,
		int size_class)
{
	int saved_errno = *t->errno_ptr;
	uint8_t *w;

	event_time(t);
	w = ring_reserve(t, RECORD_MAX_BYTES);

	if (w) {
		ring_commit(t, record_put_free_explicit(w, &t->rs, fn, seq, (uintptr_t)p,
							size_class));
		ring_count_event(t);
	}
	*t->errno_ptr = saved_errno;
}

void event_realloc(struct preload_thread *t, unsigned fn, uint64_t seq_free, const void *old_p,
		   int old_size_class, const void *new_p, size_t size_bytes, uint64_t weight,
		   void *caller_ip, void *caller_cfa)
{
	int saved_errno = *t->errno_ptr;
	uint64_t seq_alloc = event_seq_next(t);
	uint64_t stack_id = event_stack_id(t, caller_ip, caller_cfa);
	uint8_t *w;

	event_time(t);
	w = ring_reserve(t, RECORD_MAX_BYTES);

	if (w) {
		w = record_put_realloc_explicit(w, &t->rs, fn, seq_free, (uintptr_t)old_p,
						old_size_class, seq_alloc, (uintptr_t)new_p,
						size_bytes, stack_id, weight);
		ring_commit(t, w);
		ring_count_event(t);
	}
	*t->errno_ptr = saved_errno;
}

void event_seq_skip(struct preload_thread *t, uint64_t seq)
{
	int saved_errno = *t->errno_ptr;
	uint8_t *w = ring_reserve(t, 1 + VARINT_MAX_BYTES);

	if (w)
		ring_commit(t, record_put_seq_skip(w, &t->rs, seq));
	*t->errno_ptr = saved_errno;
}

/* Writes a SEQ_SKIP record of a fresh seq, then the extended record of kind
 * whose payload is u time_ns, the varints vals[0..nvals) and text (len
 * bytes), so that it stands at that seq, ordered among all threads' events. */
static void event_ext_at_seq(struct preload_thread *t, unsigned kind, uint64_t time_ns,
			     const uint64_t *vals, unsigned nvals, const char *text, size_t len)
{
	int saved_errno = *t->errno_ptr;
	uint64_t seq = event_seq_next(t);
	uint8_t *w = ring_reserve(t, (uint32_t)(1 + VARINT_MAX_BYTES + RECORD_EXT_HEADER_BYTES +
						 (1 + nvals) * VARINT_MAX_BYTES + len));
	uint8_t *rec;

	if (w) {
		w = record_put_seq_skip(w, &t->rs, seq);
		rec = w;
		w = record_ext_begin(rec, kind);
		w = varint_put_u64(w, time_ns);
		for (unsigned i = 0; i < nvals; i++)
			w = varint_put_u64(w, vals[i]);
		for (size_t i = 0; i < len; i++)
			*w++ = (uint8_t)text[i];
		record_ext_end(rec, w);
		ring_commit(t, w);
	}
	*t->errno_ptr = saved_errno;
}

void event_control(struct preload_thread *t, unsigned running, uint64_t interval_bytes,
		   uint64_t time_ns)
{
	const uint64_t vals[2] = { running, interval_bytes };

	event_ext_at_seq(t, TRACE_REC_EXT_CONTROL, time_ns, vals, 2, NULL, 0);
}

void event_unrecording(struct preload_thread *t)
{
	event_ext_at_seq(t, TRACE_REC_EXT_UNRECORDING, ring_now_ns(), NULL, 0, NULL, 0);
}

void event_marker(struct preload_thread *t, const char *name, size_t len)
{
	event_ext_at_seq(t, TRACE_REC_EXT_MARKER, ring_now_ns(), NULL, 0, name, len);
}
