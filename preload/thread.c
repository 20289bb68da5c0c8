/*
 * preload/thread.c - life cycle of the per-thread states: creation, slot
 * claiming, retirement at thread exit, recycling, and their state across
 * fork.
 *
 * Owns the pool and the registry of states (both in anonymous mappings,
 * guarded by one small lock taken only when a thread starts or ends) and the
 * pthread key whose destructor retires a thread's slot.  Must never call
 * malloc: pthread_setspecific, which may calloc, is an own call
 * (preload/own_call.h), served by the nested heap.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "preload/control.h"
#include "preload/diag.h"
#include "preload/event.h"
#include "preload/fork.h"
#include "preload/init.h"
#include "preload/launcher_alive.h"
#include "preload/lock.h"
#include "preload/mem.h"
#include "preload/meta.h"
#include "preload/own_call.h"
#include "preload/populate.h"
#include "preload/ring.h"
#include "preload/sample_set.h"
#include "preload/seccomp_watch.h"
#include "preload/seq.h"
#include "preload/sys.h"
#include "preload/thread.h"
#include "preload/thread_id.h"
#include "preload/toggle_signal.h"
#include "preload/wait.h"

__thread struct preload_thread *preload_tls __attribute__((tls_model("initial-exec")));

static struct preload_lock thread_pool_lock;
static struct preload_thread *thread_pool_free;
/* The highest sequence number a retired state's thread took (pool lock):
 * a fork child's first number must follow those of threads already ended. */
static uint64_t thread_retired_last_seq;
/* Every state ever made.  Grows under the pool lock; read without it by
 * thread_foreach (entries and arrays are never unmapped, and the array is
 * published before the count that needs it). */
static _Atomic(struct preload_thread **) thread_registry;
static _Atomic uint32_t thread_registry_count;
static uint32_t thread_registry_cap;
static _Atomic uint32_t thread_slot_hint;
/* Slots claimed so far (a waiting claim sees from it that slots come back). */
static _Atomic uint64_t thread_slot_claims;
/* Slots given back so far: retired by their thread, or freed again when
 * their ring could not be made accessible.  A slot becomes free only after
 * one of those. */
static _Atomic uint64_t thread_slot_releases;
/* 1 + thread_slot_releases as it was before the last claim that found
 * every slot owned by a live thread; 0: none did (thread_slots_hopeless). */
static _Atomic uint64_t thread_slots_full_mark;

/* 1 once this image wrote its UNRECORDING record (meta lock). */
static _Atomic int thread_unrecording_noted;

/*
 * Takes the meta writer for a thread without a slot (its preload_tls
 * THREAD_SETTING_UP, holding no lock of the shim): shares the sequence
 * counter first, so that taking a number under the meta lock takes no
 * other lock (preload/seq.h), and lends the writer the caller's errno (it
 * has none of its own).  Returns NULL, without the lock, when there is no
 * meta stream; else give it back with thread_meta_close.
 */
static struct preload_thread *thread_meta_open(void)
{
	struct preload_thread *m;

	seq_disown();
	m = meta_begin();
	if (m)
		m->errno_ptr = &errno;
	return m;
}

/* Gives back the writer thread_meta_open returned (not NULL). */
static void thread_meta_close(struct preload_thread *m)
{
	m->errno_ptr = NULL;
	meta_end(m);
}

/*
 * Before the first call of this image that a thread without a slot makes
 * unrecorded: an UNRECORDING record in the meta stream, at a sequence
 * number of its own.  A free of a block such a call allocated takes a
 * later number (the other callers wait for the record on the meta lock),
 * so the analyzer counts a recorded free it finds no block for after it
 * as a free of an unrecorded block, not as an unmatched free.  The
 * caller's preload_tls is THREAD_SETTING_UP; it holds no lock of the shim.
 */
static void thread_note_unrecording(void)
{
	struct preload_thread *m;

	if (__builtin_expect(atomic_load_explicit(&thread_unrecording_noted,
						  memory_order_acquire), 1))
		return;
	m = thread_meta_open();
	if (!m)
		return;
	if (!atomic_load_explicit(&thread_unrecording_noted, memory_order_relaxed)) {
		event_unrecording(m);
		atomic_store_explicit(&thread_unrecording_noted, 1, memory_order_release);
	}
	thread_meta_close(m);
}

int thread_free_slotless(unsigned fn, const void *p)
{
	struct preload_thread *m;
	int size_class;

	if (preload_tls || preload_proc.forward_only || !*preload_fork_token ||
	    atomic_load_explicit(&preload_phase, memory_order_acquire) != PRELOAD_READY)
		return 0;
	preload_tls = THREAD_SETTING_UP; /* a signal handler's calls meanwhile forward */
	if (control_uses_set && !sample_set_remove(p)) {
		/* a block not sampled: no record, as for a thread with a slot */
		preload_tls = NULL;
		return 1;
	}
	m = thread_meta_open();
	if (m) {
		size_class = event_free_class(p);
		event_free(m, fn, event_seq_next(m), p, size_class);
		thread_meta_close(m);
	}
	preload_tls = NULL;
	return m != NULL;
}

/* A thread first seen under a seccomp filter whose id is not to be had
 * without gettid, which an allow-list filter may kill for
 * (preload/thread_id.h): its calls stay unrecorded (counted,
 * preload/fallback.c).  Said once. */
static void thread_note_filtered_first(void)
{
	static _Atomic int said;

	if (atomic_exchange(&said, 1))
		return;
	diag_note(TRACE_DIAG_INFO, "a thread first allocated under a seccomp filter (a "
				   "sandbox): its allocator calls are counted as unrecorded, "
				   "not recorded");
}

/* The slow path of preload_thread_enter: initialises the shim or makes the
 * thread's state when needed; NULL when the call is not to be recorded. */
struct preload_thread *preload_thread_enter_slow(void)
{
	struct preload_thread *t;
	int phase = atomic_load_explicit(&preload_phase, memory_order_acquire);

	if (phase == PRELOAD_UNSTARTED) {
		preload_init_ensure();
		phase = atomic_load_explicit(&preload_phase, memory_order_acquire);
	}
	if (phase != PRELOAD_READY)
		return NULL;
	if (!*preload_fork_token) {
		fork_unseen_child();
		return NULL;
	}
	t = preload_tls;
	if (t == THREAD_SETTING_UP || (t && t->busy))
		return NULL;
	if (!t) {
		int saved_errno = errno;

		if (preload_proc.forward_only)
			return NULL;
		preload_tls = THREAD_SETTING_UP;
		if (seccomp_watch_filtered() && !thread_id_own()) {
			thread_note_filtered_first();
			return NULL; /* THREAD_SETTING_UP for good: counted, unrecorded */
		}
		if (!thread_slots_hopeless()) {
			t = thread_state_create();
			toggle_signal_check(); /* a thread's start: the program may have taken it */
		}
		if (!t)
			thread_note_unrecording();
		preload_tls = t;
		errno = saved_errno;
		if (!t)
			return NULL;
	}
	t->busy = 1;
	return t;
}

/* Adds t to the registry; pool lock held.  Returns -1 when out of memory. */
static int thread_registry_add(struct preload_thread *t)
{
	uint32_t count = atomic_load_explicit(&thread_registry_count, memory_order_relaxed);
	struct preload_thread **array = atomic_load_explicit(&thread_registry, memory_order_relaxed);

	if (count == thread_registry_cap) {
		uint32_t cap = thread_registry_cap ? 2 * thread_registry_cap : 256;
		struct preload_thread **grown = preload_mem_map(cap * sizeof(*grown));

		if (!grown)
			return -1;
		if (count)
			memcpy(grown, array, count * sizeof(*grown));
		/* The old array stays mapped: thread_foreach may be reading it. */
		array = grown;
		atomic_store_explicit(&thread_registry, grown, memory_order_release);
		thread_registry_cap = cap;
	}
	array[count] = t;
	atomic_store_explicit(&thread_registry_count, count + 1, memory_order_release);
	return 0;
}

/* Registry snapshot: returns the array and stores its valid length. */
static struct preload_thread **thread_registry_view(uint32_t *count)
{
	*count = atomic_load_explicit(&thread_registry_count, memory_order_acquire);
	return atomic_load_explicit(&thread_registry, memory_order_acquire);
}

/* Carves n elements of size bytes each at *p, moving *p past them. */
static void *thread_carve(uint8_t **p, size_t n, size_t size)
{
	void *at = *p;

	*p += n * size;
	return at;
}

/*
 * Maps a new state with its arrays sized for max_frames: the arrays first,
 * then the struct (whose record state ends with its class lists), then the
 * new nodes, which only a thread that interns stacks no thread had before
 * writes.  A thread recording shallow stacks touches the heads of the
 * arrays and the struct's first part: two pages.
 */
static struct preload_thread *thread_state_map(void)
{
	uint32_t max_frames = preload_proc.cfg.max_frames;
	uint32_t cap = max_frames + THREAD_SHIM_FRAMES_MAX;
	size_t arrays_bytes = cap * (sizeof(void *) + 2 * sizeof(uintptr_t) + sizeof(uint64_t)) +
			      5 * (size_t)max_frames * sizeof(uint64_t) +
			      2 * (size_t)max_frames * sizeof(uintptr_t);
	size_t head_bytes = (arrays_bytes + 63) & ~(size_t)63;
	size_t bytes = head_bytes + sizeof(struct preload_thread) +
		       (max_frames + 1) * sizeof(struct stack_new_node);
	uint8_t *base = preload_mem_map(bytes), *p = base;
	struct preload_thread *t;

	if (!base)
		return NULL;
	t = (struct preload_thread *)(base + head_bytes);
	t->map_base = base;
	t->map_bytes = bytes;
	t->sites_stamp = 1;
	t->control_seen = CONTROL_UNSYNCED;
	t->frames_cap = cap;
	t->frames = thread_carve(&p, cap, sizeof(void *));
	t->frame_cfas = thread_carve(&p, cap, sizeof(uintptr_t));
	t->frame_bps = thread_carve(&p, cap, sizeof(uint64_t));
	t->frame_bp_srcs = thread_carve(&p, cap, sizeof(uintptr_t));
	t->ips = thread_carve(&p, max_frames, sizeof(uint64_t));
	t->cache_ips = thread_carve(&p, max_frames, sizeof(uint64_t));
	t->cache_ids = thread_carve(&p, max_frames, sizeof(uint64_t));
	t->cache_hashes = thread_carve(&p, max_frames, sizeof(uint64_t));
	t->cache_cfas = thread_carve(&p, max_frames, sizeof(uintptr_t));
	t->cache_bps = thread_carve(&p, max_frames, sizeof(uint64_t));
	t->cache_bp_srcs = thread_carve(&p, max_frames, sizeof(uintptr_t));
	t->new_nodes = (struct stack_new_node *)(t + 1);
	return t;
}

/*
 * Takes a state from the pool or maps one for the thread tid; NULL when out
 * of memory.  A new state is mapped outside the pool lock (an mmap, while
 * thousands of threads starting at once wait for the lock), and registered
 * under it.  in_use and tid change together under the pool lock, as atomic
 * stores: thread_reap_gone reads them without it, and a recycled state
 * must not pair in_use with the tid of the ended thread that had it before.
 */
static struct preload_thread *thread_state_get(pid_t tid)
{
	struct preload_thread *t;

	preload_lock_take(&thread_pool_lock);
	t = thread_pool_free;
	if (t) {
		thread_pool_free = t->next_free;
		__atomic_store_n(&t->tid, tid, __ATOMIC_RELAXED);
		__atomic_store_n(&t->in_use, 1, __ATOMIC_RELAXED);
		t->next_free = NULL;
	}
	preload_lock_give(&thread_pool_lock);
	if (t)
		return t;
	t = thread_state_map();
	if (!t)
		return NULL;
	/* not yet in the registry: no other thread sees it */
	t->tid = tid;
	t->in_use = 1;
	t->next_free = NULL;
	preload_lock_take(&thread_pool_lock);
	if (thread_registry_add(t) < 0) {
		preload_lock_give(&thread_pool_lock);
		preload_mem_unmap(t->map_base, t->map_bytes);
		return NULL;
	}
	preload_lock_give(&thread_pool_lock);
	return t;
}

/* Resets what a recycled state must not carry over; keeps the arrays. */
static void thread_state_clear(struct preload_thread *t)
{
	t->busy = 0;
	atomic_store_explicit(&t->in_unwind, 0, memory_order_relaxed);
	t->slot = NULL;
	t->stack_lo = 0;
	t->stack_hi = 0;
	t->scrub_known = (struct stack_scrub_known){ 0, 0, 0 };
	t->cache_depth = 0;
	t->cache_cfas_ok = 0;
	t->ips_known = 0;
	t->sites_stamp++; /* forgets the cached call sites (preload/stack_sites.h) */
	t->cache_root_key = 0;
	t->cache_root_id = 0;
	t->cache_generation = 0;
	t->new_count = 0;
	t->last_seq = 0;
	t->taken_next = 0;
	t->destructor_rounds = 0;
	t->sample_countdown = 0;
	t->sample_rng = 0;
	t->sample_interval_bytes = 0;
	t->control_seen = CONTROL_UNSYNCED;
}

/* Returns t to the pool; pool lock held. */
static void thread_state_put_locked(struct preload_thread *t)
{
	seq_forget(t);
	if (t->last_seq > thread_retired_last_seq)
		thread_retired_last_seq = t->last_seq;
	thread_state_clear(t);
	__atomic_store_n(&t->in_use, 0, __ATOMIC_RELAXED); /* read unlocked: thread_state_get */
	t->next_free = thread_pool_free;
	thread_pool_free = t;
}

/* Hands t's slot to the collector: everything written is published. */
static void thread_slot_retire(struct preload_thread *t)
{
	if (!t->slot)
		return;
	atomic_store_explicit(&t->slot->state, SLOT_RETIRED, memory_order_release);
	atomic_fetch_add_explicit(&thread_slot_releases, 1, memory_order_release);
	t->slot = NULL;
}

/* Whether the thread with kernel id tid of process pid has ended. */
static int thread_is_gone(pid_t pid, pid_t tid)
{
	return syscall(SYS_tgkill, pid, tid, 0) < 0 && errno == ESRCH;
}

/*
 * Retires the slots of threads that ended without our key destructor
 * running last (they allocated again after it).  Returns how many slots
 * were retired.  Asks the kernel about each thread without the pool lock
 * (a system call per slot in use, 4096 of them while every other thread
 * starting or ending waited for the lock) and takes it only for one that
 * has ended, looking again under it.  The unlocked reads are of in_use and
 * tid only, which change atomically under the lock (thread_state_get); the
 * locked look checks them before t->slot, which a live owner writes
 * without the lock (thread_slot_attach): a state whose tid is that of an
 * ended thread is no live thread's.
 */
static int thread_reap_gone(void)
{
	int reaped = 0;
	uint32_t count;
	struct preload_thread **all = thread_registry_view(&count);
	pid_t self = preload_tid(), pid = getpid();

	for (uint32_t i = 0; i < count; i++) {
		struct preload_thread *t = all[i];
		pid_t tid = __atomic_load_n(&t->tid, __ATOMIC_RELAXED);

		if (!__atomic_load_n(&t->in_use, __ATOMIC_RELAXED) || tid == self ||
		    !thread_is_gone(pid, tid))
			continue;
		preload_lock_take(&thread_pool_lock);
		if (t->in_use && t->tid == tid && thread_is_gone(pid, tid) && t->slot) {
			thread_slot_retire(t);
			thread_state_put_locked(t);
			reaped++;
		}
		preload_lock_give(&thread_pool_lock);
	}
	return reaped;
}

/* One pass over the thread slots whose rings are mapped (all but the meta
 * stream's slot 0); returns the index claimed or -1, and then in *retired
 * how many slots ended threads left for the collector to drain and free.
 * Under the pool lock, so that thread_slots_shrink never unmaps a ring
 * being claimed. */
static int thread_slot_try_claim(uint32_t *retired)
{
	uint32_t n, start;
	int claimed = -1;

	_Static_assert(SESSION_META_SLOT == 0, "thread slots start after the meta slot");
	*retired = 0;
	preload_lock_take(&thread_pool_lock);
	n = preload_proc.cfg.nslots - 1;
	start = atomic_load_explicit(&thread_slot_hint, memory_order_relaxed);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t idx = 1 + (start + i) % n;
		struct session_slot *s = session_slot_at(preload_proc.hdr, idx);
		uint32_t expected = SLOT_FREE;
		uint32_t state = atomic_load_explicit(&s->state, memory_order_relaxed);

		if (state != SLOT_FREE) {
			*retired += state == SLOT_RETIRED;
			continue;
		}
		if (atomic_compare_exchange_strong_explicit(&s->state, &expected, SLOT_OWNED,
							    memory_order_acquire,
							    memory_order_relaxed)) {
			atomic_store_explicit(&thread_slot_hint, idx, memory_order_relaxed);
			atomic_fetch_add_explicit(&thread_slot_claims, 1, memory_order_relaxed);
			claimed = (int)idx;
			break;
		}
	}
	preload_lock_give(&thread_pool_lock);
	return claimed;
}

uint64_t thread_slots_shrink(uint32_t want_slots)
{
	struct session_proc_header *h = preload_proc.hdr;
	uint32_t keep = want_slots < 2 ? 2 : want_slots;
	uint64_t end, given = 0;

	if (!h)
		return 0;
	preload_lock_take(&thread_pool_lock);
	if (keep < preload_proc.cfg.nslots) {
		/* a slot not free (owned, or retired and not drained yet) keeps
		 * its ring mapped */
		for (uint32_t i = keep; i < preload_proc.cfg.nslots; i++)
			if (atomic_load_explicit(&session_slot_at(h, i)->state,
						 memory_order_acquire) != SLOT_FREE)
				keep = i + 1;
		end = preload_proc.ring_offset + (uint64_t)keep * preload_proc.cfg.ring_bytes;
		if (end < preload_proc.file_bytes &&
		    munmap((char *)h + end, preload_proc.file_bytes - end) == 0) {
			given = preload_proc.file_bytes - end;
			preload_proc.file_bytes = end;
			preload_proc.cfg.nslots = keep;
		}
	}
	preload_lock_give(&thread_pool_lock);
	return given;
}

/* 1 once thread_rings_seal_free has run in this image (or its parent's):
 * a claimed slot's ring is made accessible again before its first use. */
static _Atomic int thread_rings_sealed;

/* The ring of slot idx, from the recorder's own copy of the geometry. */
static uint8_t *thread_ring_at(uint32_t idx)
{
	return (uint8_t *)preload_proc.hdr + preload_proc.ring_offset +
	       (uint64_t)idx * preload_proc.cfg.ring_bytes;
}

uint64_t thread_rings_seal_free(void)
{
	uint64_t sealed = 0;
	uint32_t run = 0;

	if (!preload_proc.hdr)
		return 0;
	preload_lock_take(&thread_pool_lock);
	atomic_store_explicit(&thread_rings_sealed, 1, memory_order_relaxed);
	/* one mprotect per run of free slots, ended by a slot in use or the end */
	for (uint32_t i = 1; i <= preload_proc.cfg.nslots; i++) {
		int is_free = i < preload_proc.cfg.nslots &&
			      atomic_load_explicit(&session_slot_at(preload_proc.hdr, i)->state,
						   memory_order_acquire) == SLOT_FREE;

		if (is_free) {
			run++;
			continue;
		}
		if (run && mprotect(thread_ring_at(i - run),
				    (uint64_t)run * preload_proc.cfg.ring_bytes, PROT_NONE) == 0)
			sealed += (uint64_t)run * preload_proc.cfg.ring_bytes;
		run = 0;
	}
	preload_lock_give(&thread_pool_lock);
	return sealed;
}

void thread_rings_unseal_all(void)
{
	if (!preload_proc.hdr || !atomic_load_explicit(&thread_rings_sealed, memory_order_relaxed))
		return;
	preload_lock_take(&thread_pool_lock);
	if (mprotect((uint8_t *)preload_proc.hdr + preload_proc.ring_offset,
		     preload_proc.file_bytes - preload_proc.ring_offset,
		     PROT_READ | PROT_WRITE) == 0)
		atomic_store_explicit(&thread_rings_sealed, 0, memory_order_relaxed);
	preload_lock_give(&thread_pool_lock);
}

/* Makes slot idx's ring accessible again when rings were sealed; -1 when
 * the kernel refuses (the map count limit: the slot cannot be used). */
static int thread_ring_unseal(uint32_t idx)
{
	if (idx == SESSION_META_SLOT ||
	    !atomic_load_explicit(&thread_rings_sealed, memory_order_relaxed))
		return 0;
	return mprotect(thread_ring_at(idx), preload_proc.cfg.ring_bytes,
			PROT_READ | PROT_WRITE);
}

/* Until when (CLOCK_MONOTONIC ns) claims fail at once because every slot
 * belonged to a live thread at the last try; THREAD_SLOTS_LOOKING while
 * one claim waits or is about to. */
static _Atomic uint64_t thread_slots_full_until_ns;
#define THREAD_SLOTS_LOOKING UINT64_MAX
/* 1 while one thread waits for a slot: the others do not wait too. */
static _Atomic int thread_slot_waiter;

/*
 * Claims a free slot for t.  Slots of exited threads come back as the
 * collector drains them: while some are retired and not yet drained, a
 * claim waits for one, every claiming thread alike, as a thread waits for
 * its full ring (for up to THREAD_SLOT_DRAIN_WAIT_MS without a slot coming
 * back).  Without retired slots, a claim that finds none waits for up to
 * THREAD_SLOT_WAIT_MS (one thread at a time; others fail at once
 * meanwhile); if there is still none, every slot belongs to a live thread:
 * the claim fails (the caller's allocations go unrecorded and are counted
 * as such), a diagnostic says so once, and for the next
 * THREAD_SLOT_RETRY_NS claims fail without waiting.  So a program with
 * more live threads than slots is slowed by a clock read per call, not hung
 * (measured: 5000 threads alive at once with 4096 slots took minutes when
 * every thread waited and reaped); thread_slots_hopeless spares those
 * calls the claim's lock and scan of every slot.  A program that starts
 * and ends threads faster than the collector frees their slots (some 7000
 * a second here) used to fail its claims instead: 20000 threads of which
 * at most 201 were alive at once lost 4760 allocations.
 */
#define THREAD_SLOT_WAIT_MS 50u
#define THREAD_SLOT_DRAIN_WAIT_MS 2000u
#define THREAD_SLOT_RETRY_NS 100000000ull

/*
 * Waiting claims share two costs instead of each paying them: a scan of
 * every slot that finds none free is not repeated by another waiting claim
 * for THREAD_SLOT_RESCAN_NS (a claim clears the mark: more may have come
 * back at once), and the reap of ended threads' slots, a system call per
 * thread the recorder knows, runs once per THREAD_SLOT_REAP_NS in the
 * process, not per waiting thread.  With 6000 threads alive at once and
 * 4096 slots, the threads that waited for the first slots to come back
 * each did both every millisecond: 12.8 s instead of 0.2 s, 65 s with 8000.
 */
#define THREAD_SLOT_RESCAN_NS 1000000ull
#define THREAD_SLOT_REAP_NS 10000000ull
/* When (ring_now_ns) a waiting claim's scan last found no free slot; 0
 * after a claim. */
static _Atomic uint64_t thread_slot_scan_empty_ns;
/* When the last paced reap started. */
static _Atomic uint64_t thread_slot_reap_ns;
/* Claims waiting now (thread_slot_wait). */
static _Atomic uint32_t thread_slot_waiting;

/* A waiting claim's nap: 1 ms, one more per THREAD_SLOT_NAPPERS_PER_MS
 * claims waiting, up to THREAD_SLOT_NAP_MAX_MS, so that thousands of
 * waiting threads wake some 64 times a millisecond in all, not thousands. */
#define THREAD_SLOT_NAPPERS_PER_MS 64u
#define THREAD_SLOT_NAP_MAX_MS 16u
static unsigned thread_slot_nap_ms(void)
{
	uint32_t waiting = atomic_load_explicit(&thread_slot_waiting, memory_order_relaxed);
	unsigned nap_ms = 1 + waiting / THREAD_SLOT_NAPPERS_PER_MS;

	return nap_ms < THREAD_SLOT_NAP_MAX_MS ? nap_ms : THREAD_SLOT_NAP_MAX_MS;
}

/* A waiting claim's try: thread_slot_try_claim, unless another's scan found
 * no free slot less than THREAD_SLOT_RESCAN_NS ago (then -1, *retired as it
 * was). */
static int thread_slot_wait_try(uint32_t *retired)
{
	uint64_t empty = atomic_load_explicit(&thread_slot_scan_empty_ns, memory_order_relaxed);
	int idx;

	if (empty && ring_now_ns() - empty < THREAD_SLOT_RESCAN_NS)
		return -1;
	idx = thread_slot_try_claim(retired);
	atomic_store_explicit(&thread_slot_scan_empty_ns, idx < 0 ? ring_now_ns() : 0,
			      memory_order_relaxed);
	return idx;
}

/* thread_reap_gone for a waiting claim, when no other claim started one in
 * the last THREAD_SLOT_REAP_NS; returns how many slots it retired. */
static int thread_reap_gone_paced(void)
{
	uint64_t now = ring_now_ns();
	uint64_t last = atomic_load_explicit(&thread_slot_reap_ns, memory_order_relaxed);

	if (last && now - last < THREAD_SLOT_REAP_NS)
		return 0;
	if (!atomic_compare_exchange_strong_explicit(&thread_slot_reap_ns, &last, now,
						     memory_order_relaxed, memory_order_relaxed))
		return 0;
	return thread_reap_gone();
}

static void diag_once_slots_full(void)
{
	static _Atomic int said;

	if (atomic_exchange(&said, 1) == 0)
		diag_report(TRACE_DIAG_INFO,
			    "more threads were alive at once than the recorder has thread slots; "
			    "allocations of the threads without a slot are not recorded (see "
			    "unrecorded allocations)");
}

/* A claim that waited THREAD_SLOT_DRAIN_WAIT_MS for retired slots in vain. */
static void diag_once_slots_undrained(void)
{
	static _Atomic int said;

	if (atomic_exchange(&said, 1) == 0)
		diag_report(TRACE_DIAG_INFO,
			    "the launcher freed no thread slot of an ended thread for 2 s; "
			    "allocations of the threads without a slot are not recorded (see "
			    "unrecorded allocations)");
}

/* The waiting part of thread_slot_claim, retired the count of the first
 * try's; returns a slot index or -1. */
static int thread_slot_wait_naps(uint32_t retired)
{
	unsigned waited_ms = 0, stalled_ms = 0, alive_ms = 0;
	uint32_t least_retired = retired;
	uint64_t claims = atomic_load_explicit(&thread_slot_claims, memory_order_relaxed);
	int idx;

	while ((idx = thread_slot_wait_try(&retired)) < 0) {
		int phase = atomic_load_explicit(&preload_phase, memory_order_relaxed);
		unsigned nap_ms;

		if (phase != PRELOAD_READY && phase != PRELOAD_INITIALIZING)
			return -1;
		if (thread_reap_gone_paced())
			continue;
		/* the collector frees slots: fewer are retired, or others got one */
		if (retired < least_retired ||
		    atomic_load_explicit(&thread_slot_claims, memory_order_relaxed) != claims) {
			least_retired = retired;
			claims = atomic_load_explicit(&thread_slot_claims, memory_order_relaxed);
			stalled_ms = 0;
		}
		if (retired && stalled_ms >= THREAD_SLOT_DRAIN_WAIT_MS) {
			diag_once_slots_undrained();
			return -1;
		}
		if (!retired && waited_ms >= THREAD_SLOT_WAIT_MS) {
			atomic_store_explicit(&thread_slots_full_until_ns,
					      ring_now_ns() + THREAD_SLOT_RETRY_NS,
					      memory_order_relaxed);
			diag_once_slots_full();
			return -1;
		}
		nap_ms = thread_slot_nap_ms();
		preload_nap(&(struct timespec){ 0, (long)nap_ms * 1000000 });
		stalled_ms += nap_ms;
		waited_ms += nap_ms;
		alive_ms += nap_ms;
		if (alive_ms >= 100) {
			alive_ms = 0;
			if (!preload_launcher_alive()) {
				preload_process_disable("the mprof launcher is gone; recording stopped");
				return -1;
			}
		}
	}
	return idx;
}

/* thread_slot_wait_naps, counted in thread_slot_waiting. */
static int thread_slot_wait(uint32_t retired)
{
	int idx;

	atomic_fetch_add_explicit(&thread_slot_waiting, 1, memory_order_relaxed);
	idx = thread_slot_wait_naps(retired);
	atomic_fetch_sub_explicit(&thread_slot_waiting, 1, memory_order_relaxed);
	return idx;
}

int thread_slots_hopeless(void)
{
	uint64_t mark = atomic_load_explicit(&thread_slots_full_mark, memory_order_relaxed);
	uint64_t until;

	if (__builtin_expect(!mark, 1) ||
	    mark - 1 != atomic_load_explicit(&thread_slot_releases, memory_order_acquire))
		return 0;
	until = atomic_load_explicit(&thread_slots_full_until_ns, memory_order_relaxed);
	if (until == THREAD_SLOTS_LOOKING || ring_now_ns() < until)
		return 1;
	/* time to look again: one caller claims (and waits), the others do not
	 * queue on the pool lock behind it */
	return !atomic_compare_exchange_strong_explicit(&thread_slots_full_until_ns, &until,
							THREAD_SLOTS_LOOKING,
							memory_order_relaxed,
							memory_order_relaxed);
}

int thread_slot_claim(struct preload_thread *t)
{
	uint64_t releases = atomic_load_explicit(&thread_slot_releases, memory_order_acquire);
	uint32_t retired;
	int idx = thread_slot_try_claim(&retired);

	if (idx < 0 && retired) {
		idx = thread_slot_wait(retired);
		if (idx < 0)
			return -1;
	} else if (idx < 0) {
		/* every slot was a live thread's: none is free before a release */
		uint64_t until = atomic_load_explicit(&thread_slots_full_until_ns,
						      memory_order_relaxed);

		atomic_store_explicit(&thread_slots_full_mark, releases + 1, memory_order_relaxed);
		if ((until != THREAD_SLOTS_LOOKING && ring_now_ns() < until) ||
		    atomic_exchange(&thread_slot_waiter, 1))
			return -1;
		atomic_store_explicit(&thread_slots_full_until_ns, THREAD_SLOTS_LOOKING,
				      memory_order_relaxed);
		idx = thread_slot_wait(0); /* sets the time again when it fails */
		if (idx >= 0)
			atomic_store_explicit(&thread_slots_full_until_ns, 0, memory_order_relaxed);
		atomic_store(&thread_slot_waiter, 0);
		if (idx < 0)
			return -1;
	}
	return thread_slot_attach(t, (uint32_t)idx);
}

int thread_slot_attach(struct preload_thread *t, uint32_t idx)
{
	struct session_slot *slot = session_slot_at(preload_proc.hdr, idx);

	if (thread_ring_unseal(idx) < 0) {
		atomic_store_explicit(&slot->state, SLOT_FREE, memory_order_release);
		atomic_fetch_add_explicit(&thread_slot_releases, 1, memory_order_release);
		return -1;
	}
	/* the slot's page of the file, before its first write (populate.h) */
	if (populate_pages((void *)((uintptr_t)slot & ~(uintptr_t)(PRELOAD_PAGE_BYTES - 1)),
			   PRELOAD_PAGE_BYTES) < 0) {
		preload_process_disable(POPULATE_FULL_TEXT);
		return -1;
	}
	session_slots_high_raise(preload_proc.hdr, idx);
	t->slot = slot;
	t->slot->tid = (uint32_t)t->tid;
	atomic_store_explicit(&t->slot->taken_seq[0], 0, memory_order_relaxed);
	atomic_store_explicit(&t->slot->taken_seq[1], 0, memory_order_relaxed);
	atomic_store_explicit(&t->slot->taking, 0, memory_order_relaxed);
	/* the geometry from the recorder's own copy, not the header, which
	 * the program may have written over */
	t->ring = thread_ring_at(idx);
	t->ring_bytes = preload_proc.cfg.ring_bytes;
	t->write_pos = atomic_load_explicit(&t->slot->write_pos, memory_order_relaxed);
	t->read_pos_seen = atomic_load_explicit(&t->slot->read_pos, memory_order_acquire);
	t->lap_offset = (uint32_t)(t->write_pos % t->ring_bytes);
	ring_fill_start(t);
	t->wake_check_pos = 0;
	return ring_write_thread_start(t);
}

struct preload_thread *thread_state_create(void)
{
	struct preload_thread *t = thread_state_get(thread_id_own());

	if (!t)
		return NULL;
	t->errno_ptr = &errno;
	if (thread_slot_claim(t) < 0) {
		preload_lock_take(&thread_pool_lock);
		thread_slot_retire(t);
		thread_state_put_locked(t);
		preload_lock_give(&thread_pool_lock);
		return NULL;
	}
	if (preload_proc.have_thread_key) {
		struct own_call own;

		own_call_enter(&own);
		pthread_setspecific(preload_proc.thread_key, t);
		own_call_leave(&own);
	}
	return t;
}

/*
 * Key destructor, run when the thread exits: retires the slot and recycles
 * the state.  Other destructors (and the C library after them) may still
 * allocate or free, so it re-arms itself until the last destructor round
 * (PTHREAD_DESTRUCTOR_ITERATIONS) to retire as late as it can.  A thread
 * that allocates after that simply gets a new state and slot, which
 * thread_reap_gone retires once the thread has ended.
 */
static void thread_key_destructor(void *arg)
{
	struct preload_thread *t = arg;

	if (!t || t != preload_tls || t->busy)
		return;
	if (++t->destructor_rounds < PTHREAD_DESTRUCTOR_ITERATIONS &&
	    pthread_setspecific(preload_proc.thread_key, t) == 0)
		return;
	preload_tls = THREAD_SETTING_UP;
	preload_lock_take(&thread_pool_lock);
	thread_slot_retire(t);
	thread_state_put_locked(t);
	preload_lock_give(&thread_pool_lock);
	preload_tls = NULL;
}

void thread_key_init(void)
{
	if (pthread_key_create(&preload_proc.thread_key, thread_key_destructor) == 0)
		preload_proc.have_thread_key = 1;
}

void thread_foreach(void (*fn)(struct preload_thread *t))
{
	uint32_t count;
	struct preload_thread **all = thread_registry_view(&count);

	for (uint32_t i = 0; i < count; i++)
		fn(all[i]);
}

void thread_fork_prepare(void)
{
	preload_lock_take(&thread_pool_lock);
}

void thread_fork_parent(void)
{
	preload_lock_give(&thread_pool_lock);
}

uint64_t thread_fork_child(struct preload_thread *self)
{
	uint64_t fork_seq = thread_retired_last_seq;
	uint32_t count;
	struct preload_thread **all = thread_registry_view(&count);

	atomic_store(&thread_slot_waiter, 0);
	atomic_store(&thread_slot_waiting, 0); /* the parent's waiting threads are not here */
	atomic_store(&thread_slot_scan_empty_ns, 0);
	atomic_store(&thread_slot_reap_ns, 0);
	atomic_store(&thread_unrecording_noted, 0); /* the child's file has no such record */
	atomic_store(&thread_slots_full_until_ns, 0);
	atomic_store(&thread_slots_full_mark, 0);
	thread_pool_free = NULL;
	for (uint32_t i = 0; i < count; i++) {
		struct preload_thread *t = all[i];

		if (t->in_use && t->last_seq > fork_seq)
			fork_seq = t->last_seq;
		if (t != self) {
			thread_state_put_locked(t);
		} else {
			t->slot = NULL; /* it belonged to the parent's file */
			t->cache_depth = 0;
			t->cache_cfas_ok = 0;
			t->ips_known = 0;
			t->sites_stamp++;
			t->cache_root_id = 0;
			t->cache_generation = 0;
		}
	}
	preload_lock_reset(&thread_pool_lock);
	return fork_seq;
}
