/*
 * preload/thread.h - per-thread state of the shim.
 *
 * A thread keeps exactly one pointer in initial-exec TLS (preload_tls); the
 * state it points to lives in an anonymous mapping, is pooled and recycled
 * when the thread exits, and holds everything a thread needs to record: its
 * slot and ring in the process file, its record delta state, the unwind
 * buffer and its cache of the previous call stack.  The arrays lie before
 * the struct in its mapping, the record state's class lists at its end: a
 * thread that records a few stacks touches two pages of it.  Nothing large ever sits
 * in TLS or on the target's stack, so threads with small stacks are safe.
 */
#ifndef MPROF_PRELOAD_THREAD_H
#define MPROF_PRELOAD_THREAD_H

#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>

#include "preload/process.h"
#include "preload/stack_scrub.h"
#include "trace/record.h"
#include "trace/session.h"

/* Frames of the shim and the unwinder captured above the caller, at most. */
#define THREAD_SHIM_FRAMES_MAX 16u

/* TLS value while a thread's state is being set up or torn down. */
#define THREAD_SETTING_UP ((struct preload_thread *)1)

struct unwind_fast_memo;
struct stack_site;

/* A call-stack node created by this thread's last intern, for its STACK record. */
struct stack_new_node {
	uint64_t id, parent, ip;
};

struct preload_thread {
	int busy;                   /* inside an entry point: nested calls forward */

	/* What every call reads, in the first cache line with busy. */
	uint64_t control_seen;      /* the control word this thread acted on
	                             * last (preload/control.h) */
	uint64_t sample_countdown;  /* bytes before the next sampled one
	                             * (preload/sample.h) */
	uint64_t sample_interval_bytes; /* this thread's interval; 0: exact */

	_Atomic int in_unwind;      /* inside the unwinder; fork waits for 0 */
	_Atomic int seq_busy;       /* taking a number as the counter's owner (preload/seq.h) */
	pid_t tid;                  /* kernel thread id of the owner */
	int *errno_ptr;             /* the owner's errno (its address is fixed
	                             * per thread: no libc call to reach it) */
	int in_use;                 /* owned by a live thread (else in the pool) */
	struct preload_thread *next_free;
	size_t map_bytes;           /* size of this state's mapping */

	/* The slot and its ring. */
	struct session_slot *slot;  /* NULL: no slot claimed */
	uint8_t *ring;
	uint32_t ring_bytes;
	uint32_t lap_offset;        /* where the next record goes in this lap */
	uint32_t lap_limit;         /* records of this lap fit below it without
	                             * faulting in more of the ring (ring.c) */
	uint32_t fill_from;         /* ring offset (page) its faulting in began at */
	uint32_t fill_step;         /* bytes the next faulting in covers at least */
	int fill_wrapped;           /* the lap is one after fill_from's: what
	                             * lies at and past fill_from is there */
	uint64_t write_pos;         /* bytes ever written (published in slot) */
	uint64_t read_pos_seen;     /* the collector's read_pos as last loaded */
	uint32_t events_until_time; /* events left before the next TIME record */
	uint64_t time_ticks;        /* ring_ticks() at the last TIME */
	uint64_t time_written_ns;   /* the last TIME record's CLOCK_MONOTONIC ns */
	uint64_t wake_check_pos;    /* write_pos at which ring_commit next looks
	                             * whether to wake a sleeping launcher */
	uint64_t last_seq;          /* last sequence number this thread took */
	uint32_t taken_next;        /* which of the slot's taken_seq gets the next */
	int destructor_rounds;      /* key destructor calls so far (thread exit) */

	/* Call-stack capture and the cache of the previous stack. */
	uint32_t frames_cap;        /* capacity of frames */
	int frames_from_caller;     /* frames[0] is the allocator's caller (no
	                             * shim frames before it; preload/unwind.c) */
	void **frames;              /* unwind buffer, leaf first */
	uintptr_t *frame_cfas;      /* frame_cfas[k], k >= 1: frames[k] was read at frame_cfas[k] - 8 */
	uint64_t *frame_bps;        /* rbp in frames[k]'s context (CFI walks) */
	uintptr_t *frame_bp_srcs;   /* how frames[k] got it (UNWIND_BP_SRC_*, preload/unwind_fast.h) */
	uint64_t *ips;              /* the kept frames, outermost first */
	uint32_t ips_known;         /* ips[0, ips_known) were left out: they are
	                             * cache_ips[0, ips_known) (preload/unwind.c) */
	int cache_cfas_ok;          /* cache_cfas holds the previous stack's CFAs */
	uint64_t beyond_ip;         /* a truncated walk from the caller: the first
	                             * frame past the kept ones, and the address */
	uintptr_t beyond_cfa;       /*   above its slot; 0: none (stack_sites.c) */
	uint32_t cache_rsp_only;    /* cached frames [0, cache_rsp_only) have
	                             * rsp-based CFA rules (preload/unwind_fast.h) */
	uint64_t *cache_ips;        /* previous stack's frames, outermost first */
	uint64_t *cache_ids;        /* their node ids */
	uint64_t *cache_hashes;     /* their path hashes (preload/stack_table.c) */
	uintptr_t *cache_cfas;      /* where their return addresses lay, + 8 (the
	                             * CFA of each frame's callee); valid below
	                             * cache_depth when cache_cfas_ok */
	uint64_t *cache_bps;        /* rbp in each cached frame's context, and */
	uintptr_t *cache_bp_srcs;   /*   how it got it from the frame after it
	                             *   (UNWIND_BP_SRC_*); the last frame's is
	                             *   about the shim's frame: never used */
	uintptr_t stack_lo;         /* this thread's stack, for the fast unwinder; */
	uintptr_t stack_hi;         /*   both 0: not learnt yet (preload/unwind.c) */
	struct unwind_fast_memo *unwind_memo; /* the fast unwinder's memo; kept when recycled */
	uintptr_t unwind_fail_ip;   /* lookup address of the frame the last failed
	                             * CFI walk met (where a signal frame may be) */
	void *rec_stack;            /* the recorder's stack mapping, or NULL; kept
	                             * when recycled (preload/rec_stack.h) */
	int capture_off_stack;      /* the capture under way is on another stack
	                             * than the thread's own (preload/event.c) */
	struct stack_scrub_known scrub_known; /* pages of its stack known
	                             * resident (preload/stack_scrub.h) */
	int rec_stack_active;       /* running on it now */
	uint32_t cache_depth;
	uint64_t cache_root_key;    /* 2 * epoch + truncated of the previous stack */
	uint64_t cache_root_id;
	uint64_t cache_generation;  /* stack-table generation the cache belongs to */
	struct stack_new_node *new_nodes;
	uint32_t new_count;
	struct stack_site *sites;   /* the mapping of the cache of stacks by
	                             * call site, or NULL (preload/stack_sites.c);
	                             * kept when recycled */
	uint64_t sites_stamp;       /* entries with another stamp are empty */
	uint64_t sites_log_pos;     /* slots ever appended to the sites' log */
	uintptr_t entry_bp_cfa;     /* the CFA of the call being recorded when
	                             * entry_bp is its caller's rbp, read at the
	                             * entry point; 0: not known (stack_sites.h) */
	uint64_t entry_bp;

	uint64_t sample_rng;        /* sampler's generator state; 0: not seeded yet */
	uint32_t captures;          /* stacks captured by a walk; the unwinder's
	                             * memo and the call-site cache are mapped
	                             * once THREAD_CACHES_AFTER_CAPTURES were */
	void *map_base;             /* the mapping this state lies in (its arrays
	                             * come first, thread_state_map) */

	/* Last: the encoder's class lists (8 KiB), of which a thread touches
	 * only the classes it frees (record_state_reset_used). */
	struct record_state rs;     /* encoder delta state */
};

/* Captures a thread makes before its unwinder's memo and its call-site
 * cache (about 3 pages together) are mapped: the many threads of a server
 * that allocate a few times at their start never pay for them. */
#define THREAD_CACHES_AFTER_CAPTURES 32u

extern __thread struct preload_thread *preload_tls __attribute__((tls_model("initial-exec")));

struct preload_thread *preload_thread_enter_slow(void);

/*
 * Non-zero in the process the shim set up and in each child its fork
 * handler set up; 0 in a child made without them (preload/fork.h): it
 * points into a page mapped with MADV_WIPEONFORK, which such a child gets
 * zeroed (to a static 1 where the kernel cannot do that).
 */
extern uint32_t *preload_fork_token;

/*
 * Returns this thread's state, marked busy, when the call is to be
 * recorded; NULL when it must take the unrecorded path (preload/fallback.c:
 * shim not ready or inert, a nested call made by the shim's own callees, or
 * a child the fork handlers did not see).  The fast path is five loads and
 * a store.
 */
static inline struct preload_thread *preload_thread_enter(void)
{
	struct preload_thread *t = preload_tls;

	if (__builtin_expect((uintptr_t)t > (uintptr_t)THREAD_SETTING_UP && !t->busy, 1) &&
	    __builtin_expect(atomic_load_explicit(&preload_phase, memory_order_acquire) ==
				     PRELOAD_READY, 1) &&
	    __builtin_expect(*preload_fork_token != 0, 1)) {
		t->busy = 1;
		return t;
	}
	return preload_thread_enter_slow();
}

/* Whether t, the calling thread's preload_tls, may take a fast path that
 * does not mark it busy: it has a state, is not inside the shim, and the
 * shim is ready. */
static inline int preload_thread_usable(const struct preload_thread *t)
{
	return (uintptr_t)t > (uintptr_t)THREAD_SETTING_UP && !t->busy &&
	       atomic_load_explicit(&preload_phase, memory_order_acquire) == PRELOAD_READY;
}

/* Whether the calling thread is inside the shim: a call now comes from the
 * shim's own callees (preload/own_call.h) or a signal handler that
 * interrupted the shim. */
static inline int preload_thread_nested(void)
{
	struct preload_thread *t = preload_tls;

	return t == THREAD_SETTING_UP || (t && t->busy);
}

static inline void preload_thread_leave(struct preload_thread *t)
{
	t->busy = 0;
}

/*
 * Marks t busy again after a preload_thread_leave, when the call into the
 * real allocator made in between has returned.  The entry points leave the
 * thread unmarked across that call, so that a signal handler interrupting
 * the C library's own work is recorded like any other call (the recorder
 * holds nothing then); only one interrupting the recorder's work is not.
 */
static inline void preload_thread_resume(struct preload_thread *t)
{
	t->busy = 1;
}

/*
 * Makes the calling thread's state: takes one from the pool (or maps a new
 * one), claims a free slot (waiting when there is none) and writes THREAD
 * and TIME records.  Returns NULL when recording stopped meanwhile or memory
 * ran out.  The caller keeps preload_tls at THREAD_SETTING_UP meanwhile.
 */
struct preload_thread *thread_state_create(void);

/*
 * Records free(p) (fn: enum trace_free_fn) of a calling thread that has no
 * slot (more threads alive than slots, or past its last key destructor
 * round) as a FREE record in the meta stream, under the meta lock, so that
 * a recorded block's free is recorded whichever thread frees it.  In set
 * mode only a block of the set is recorded (another needs no record, and
 * is not counted unrecorded, as for a thread with a slot).  Returns 1 when
 * the free needs nothing more (the caller then frees p), 0 when the caller
 * is not such a thread or nothing was written (p goes the unrecorded way).
 * Takes the meta lock; the caller holds none of the shim's locks.
 */
int thread_free_slotless(unsigned fn, const void *p);

/* Creates the pthread key whose destructor retires a thread's slot. */
void thread_key_init(void);

/*
 * Fork support.  thread_fork_prepare takes the pool lock (no state changes
 * hands during the fork) and thread_fork_parent releases it.
 * thread_fork_child, in the child, returns every state except self's to the
 * pool, resets the lock and returns the highest sequence number any thread
 * had taken when the process was copied, ended threads included (the child's fork_seq).
 */
void thread_fork_prepare(void);
void thread_fork_parent(void);
uint64_t thread_fork_child(struct preload_thread *self);

/* Calls fn for every state ever made, in use or pooled.  Takes no lock:
 * states made meanwhile may be missed. */
void thread_foreach(void (*fn)(struct preload_thread *t));

/*
 * Claims a free slot of the process file for t (never the meta stream's
 * slot 0, preload/meta.h) and writes THREAD and TIME records there.  Waits
 * while all slots are taken.  Returns 0, or -1 when recording stopped.
 */
int thread_slot_claim(struct preload_thread *t);

/*
 * Whether a thread without a state need not try to claim a slot: the last
 * claim found every slot owned by a live thread, no slot was released
 * since, and claims fail at once for now (THREAD_SLOT_RETRY_NS after the
 * last wait, or while another claim waits or is about to: of the callers
 * that find that time over, one is let through).  A few loads and a clock
 * read, against the pool lock and a scan of every slot (4096: a thread
 * past them allocated 6 times slower than natively, bench/HISTORY.md).
 */
int thread_slots_hopeless(void);

/*
 * Unmaps the rings of the free slots from want_slots (at least 2) on, for
 * a program that lowered its RLIMIT_AS: those slots are never claimed
 * again in this image, and a fork child's process file has only the slots
 * left.  A slot in use keeps its ring, and so do those below it.  Returns
 * the bytes of address space given back.
 */
uint64_t thread_slots_shrink(uint32_t want_slots);

/*
 * Makes the rings of the free thread slots inaccessible (PROT_NONE) until
 * a thread claims one, for a program about to call mlockall(MCL_CURRENT):
 * the kernel faults in and locks every accessible page of a locked
 * mapping, which for the process file's 4096 rings of 768 KiB was 3 GiB of
 * shared memory and some 20 s, and skips inaccessible ones.  Returns the
 * bytes sealed.  Takes the pool lock; the caller holds no recorder lock.
 */
uint64_t thread_rings_seal_free(void);

/* Makes every ring accessible again and claims no longer mprotect, before
 * the program installs a seccomp filter that may kill mprotect.  Takes the
 * pool lock; the caller holds no recorder lock. */
void thread_rings_unseal_all(void);

/*
 * Makes slot idx, already claimed (state OWNED), t's ring: raises the
 * header's slots_high over it first, takes over the slot's positions and
 * writes THREAD (t->tid) and TIME records.  Returns 0,
 * or -1 when recording stopped.
 */
int thread_slot_attach(struct preload_thread *t, uint32_t idx);

#endif
