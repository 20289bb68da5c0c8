/*
 * preload/meta.c - the writer of the process's metadata stream (meta.h).
 *
 * Owns the meta writer (a struct preload_thread whose slot is
 * SESSION_META_SLOT and tid 0, written through the ordinary ring code) and
 * the small lock that lets any thread write it.  New call-stack nodes,
 * module maps, process information and diagnostics are rare next to
 * allocator events, so one lock costs nothing measurable; in exchange
 * `mprof-analyze symbolize` reads one stream instead of decoding every
 * event of the trace.  Must never call malloc; the lock is never held across
 * a call into the loader or a wait for another of the shim's locks.
 */
#include <string.h>

#include "preload/lock.h"
#include "preload/mem.h"
#include "preload/meta.h"
#include "preload/ring.h"

static struct preload_lock meta_lock;
static struct preload_thread meta_writer PRELOAD_LARGE_BSS;

int meta_start(void)
{
	struct session_slot *s;
	uint32_t expected = SLOT_FREE;
	int rc;

	if (!preload_proc.hdr)
		return -1;
	s = session_slot_at(preload_proc.hdr, SESSION_META_SLOT);
	if (!atomic_compare_exchange_strong_explicit(&s->state, &expected, SLOT_OWNED,
						     memory_order_acquire, memory_order_relaxed))
		return -1;
	preload_lock_take(&meta_lock);
	meta_writer.tid = 0;
	rc = thread_slot_attach(&meta_writer, SESSION_META_SLOT);
	preload_lock_give(&meta_lock);
	return rc;
}

struct preload_thread *meta_begin(void)
{
	preload_lock_take(&meta_lock);
	if (meta_writer.slot)
		return &meta_writer;
	preload_lock_give(&meta_lock);
	return NULL;
}

void meta_end(struct preload_thread *m)
{
	(void)m;
	preload_lock_give(&meta_lock);
}

void meta_fork_child(void)
{
	memset(&meta_writer, 0, sizeof(meta_writer));
	preload_lock_reset(&meta_lock);
}
