/*
 * preload/interpose.c - the exported entry points of the allocator API and
 * dlclose (the shim's other exported functions: preload/exported.h).
 *
 * Each entry point is the hot path and reads the same way: enter (NULL:
 * forward unrecorded), call the real function, record the outcome, leave.
 * The thread is not marked busy inside the real function (but for a
 * realloc of a block, whose free part took its number before): a signal
 * handler that interrupts the C library's allocator is recorded.
 * Sequence numbers follow the contract: after the real call for an
 * allocation, before it for a free, both for a realloc of a non-null block.
 * Failed calls record nothing (a failed realloc emits SEQ_SKIP for the
 * number it took); one the C library fails is made once more when the
 * recorder could give address space back to a lowered RLIMIT_AS then
 * (ALLOC_RETRIED).  Must never call malloc itself and never pass a block
 * of the shim's own (bootstrap arena, nested heap) to the real allocator.
 *
 * The C library's internal entry points that glibc exports (__libc_malloc,
 * __libc_free, __libc_calloc, __libc_realloc, __libc_reallocarray,
 * __libc_memalign, __libc_valloc, __libc_pvalloc) are recorded the same
 * way, as the public entry point of that name would be, at their caller;
 * they forward to the C library's own __libc_ functions (real_libc).
 *
 * With a foreign allocator ahead of the shim (the program's own malloc), its
 * calls reach the shim's entry points that it defines too only when it
 * forwards to the next definition (dlsym(RTLD_NEXT)): they record and go to
 * the C library's, never back to the foreign one (which would call them
 * again).  The entry points it lacks get its blocks: they go to its realloc
 * and free unrecorded (real.h, foreign_realloc and foreign_free).
 */
#define _GNU_SOURCE
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>

#include "preload/control.h"
#include "preload/event.h"
#include "preload/exported.h"
#include "preload/fallback.h"
#include "preload/init.h"
#include "preload/modules.h"
#include "preload/namespaces.h"
#include "preload/real.h"
#include "preload/record_path.h"
#include "preload/rlimit.h"
#include "preload/sample.h"
#include "preload/sample_set.h"
#include "preload/thread.h"

/* C23's sized frees, defined only where the C library has them
 * (configure.ac): a definition of the shim's would be found where the
 * program finds none natively (dlsym(RTLD_DEFAULT), a weak reference). */
#ifdef HAVE_FREE_SIZED
PRELOAD_API void free_sized(void *p, size_t size_bytes);
#endif
#ifdef HAVE_FREE_ALIGNED_SIZED
PRELOAD_API void free_aligned_sized(void *p, size_t align_bytes, size_t size_bytes);
#endif

/* The C library's internal entry points, which no header declares. */
PRELOAD_API void *__libc_malloc(size_t size_bytes);
PRELOAD_API void __libc_free(void *p);
PRELOAD_API void *__libc_calloc(size_t n, size_t size_bytes);
PRELOAD_API void *__libc_realloc(void *old, size_t size_bytes);
PRELOAD_API void *__libc_reallocarray(void *old, size_t n, size_t size_bytes);
PRELOAD_API void *__libc_memalign(size_t align_bytes, size_t size_bytes);
PRELOAD_API void *__libc_valloc(size_t size_bytes);
PRELOAD_API void *__libc_pvalloc(size_t size_bytes);

/* A slow path shared by the public entry points and the C library's
 * internal ones (table real or real_libc): always inlined, so that each
 * instance reads its table at a fixed address. */
#define INTERPOSE_VIA static inline __attribute__((always_inline))

/*
 * The value of call, an allocation through the C library that returns a
 * pointer; when that is NULL and the recorder just gave address space back
 * to an RLIMIT_AS lowered where no wrapper saw it (preload/rlimit.h), the
 * value of call made once more.  Only where the thread holds none of the
 * recorder's locks.
 */
#define ALLOC_RETRIED(call)                                                   \
	__extension__({                                                       \
		void *alloc_retried_p = (call);                               \
		if (__builtin_expect(!alloc_retried_p, 0) && rlimit_retry_worth()) \
			alloc_retried_p = (call);                             \
		alloc_retried_p;                                              \
	})

/* The realloc of table r (real or real_libc), retried as ALLOC_RETRIED
 * says; not realloc(old, 0), whose NULL may say that old was freed. */
INTERPOSE_VIA void *interpose_real_realloc(const struct real_allocator *r, void *old,
					   size_t size_bytes)
{
	if (!size_bytes)
		return r->realloc(old, 0);
	return ALLOC_RETRIED(r->realloc(old, size_bytes));
}

/* The C library's posix_memalign, retried as ALLOC_RETRIED says. */
static inline int interpose_real_posix_memalign(void **out, size_t align_bytes,
						size_t size_bytes)
{
	int rc = real.posix_memalign(out, align_bytes, size_bytes);

	if (__builtin_expect(rc == ENOMEM, 0) && rlimit_retry_worth())
		rc = real.posix_memalign(out, align_bytes, size_bytes);
	return rc;
}

/* n * size_bytes, or 0 with *overflow set. */
static inline size_t interpose_mul(size_t n, size_t size_bytes, int *overflow)
{
	size_t total;

	*overflow = __builtin_mul_overflow(n, size_bytes, &total);
	return total;
}

/* reallocarray's size: n * size_bytes into *total_bytes and 1, or 0 with
 * errno ENOMEM when that overflows (the call then fails, old left live). */
static inline int interpose_array_bytes(size_t n, size_t size_bytes, size_t *total_bytes)
{
	if (__builtin_expect(__builtin_mul_overflow(n, size_bytes, total_bytes), 0)) {
		errno = ENOMEM;
		return 0;
	}
	return 1;
}

/* malloc past its fast path, through table r (caller_ip and caller_cfa:
 * the entry point's caller; caller_bp its rbp, when caller_bp_known).  The
 * caller's rbp is lent to the call-site cache while t is busy, and so read
 * by this call's capture only (preload/stack_sites.h). */
INTERPOSE_VIA void *interpose_malloc_via(const struct real_allocator *r, size_t size_bytes,
					 void *caller_ip, void *caller_cfa, uint64_t caller_bp,
					 int caller_bp_known)
{
	struct preload_thread *t = preload_thread_enter();
	void *p;

	if (!t)
		return fallback_malloc(r, size_bytes);
	preload_thread_leave(t);
	p = ALLOC_RETRIED(r->malloc(size_bytes));
	preload_thread_resume(t);
	if (p)
		interpose_alloc_record_bp(t, TRACE_FN_MALLOC, p, size_bytes, caller_ip, caller_cfa,
					  caller_bp, caller_bp_known);
	preload_thread_leave(t);
	return p;
}

/* 1 where the exported allocating entry points read their caller's rbp
 * (below). */
#if defined(__x86_64__)
#define INTERPOSE_ENTRY_BP_KNOWN 1
#else
#define INTERPOSE_ENTRY_BP_KNOWN 0
#endif

/* Past the fast path, a first call from a foreign malloc that forwards to
 * this one is said once (preload/init.h). */
static __attribute__((noinline)) void *interpose_malloc(size_t size_bytes, void *caller_ip,
							void *caller_cfa, uint64_t caller_bp)
{
	if (__builtin_expect(real.foreign_forward_unseen, 0))
		preload_init_foreign_forwards();
	return interpose_malloc_via(&real, size_bytes, caller_ip, caller_cfa, caller_bp,
				    INTERPOSE_ENTRY_BP_KNOWN);
}

static __attribute__((noinline)) void *interpose_libc_malloc(size_t size_bytes, void *caller_ip,
							     void *caller_cfa, uint64_t caller_bp)
{
	return interpose_malloc_via(&real_libc, size_bytes, caller_ip, caller_cfa, caller_bp,
				    INTERPOSE_ENTRY_BP_KNOWN);
}

/*
 * Every exported allocating entry point (malloc, calloc, realloc,
 * reallocarray, the aligned ones, the __libc_ ones) hands its caller's rbp,
 * which compiled code may reuse before reading it, to its C entry point as
 * the argument after its own (register bp_reg), so that stacks whose
 * allocating function has an rbp-based CFA (a frame pointer, a realigned
 * or variable-size frame: PostgreSQL's AllocSetAlloc) can be found again in
 * the call-site cache.  Without it each of their calls was a capture: ~1 us
 * (bench/HISTORY.md, session 62).  deep_bind_self_FN names the same code.
 */
#if defined(__x86_64__)
#ifdef __CET__
#define INTERPOSE_STUB_ENDBR "\tendbr64\n"
#else
#define INTERPOSE_STUB_ENDBR ""
#endif
/* The stub of fn, also named by the hidden labels self (or none). */
#define INTERPOSE_BP_STUB_AS(fn, bp_reg, self, self_size)                     \
	__asm__(".text\n"                                                     \
		".globl " #fn "\n"                                            \
		".type " #fn ", @function\n"                                  \
		self                                                          \
		#fn ":\n"                                                     \
		"\t.cfi_startproc\n"                                          \
		INTERPOSE_STUB_ENDBR                                          \
		"\tmovq %rbp, %" bp_reg "\n"                                  \
		"\tjmp interpose_" #fn "_entry\n"                             \
		"\t.cfi_endproc\n"                                            \
		".size " #fn ", .-" #fn "\n"                                  \
		self_size)
#define INTERPOSE_BP_STUB(fn, bp_reg)                                         \
	INTERPOSE_BP_STUB_AS(fn, bp_reg,                                      \
			     ".globl deep_bind_self_" #fn "\n"                \
			     ".hidden deep_bind_self_" #fn "\n"               \
			     ".type deep_bind_self_" #fn ", @function\n"      \
			     "deep_bind_self_" #fn ":\n",                     \
			     ".size deep_bind_self_" #fn ", .-deep_bind_self_" #fn "\n")
/* The C library's internal names, which have no deep_bind_self_ name. */
#define INTERPOSE_BP_STUB_LIBC(fn, bp_reg) INTERPOSE_BP_STUB_AS(fn, bp_reg, "", "")
/*
 * The header of the entry point fn of return type ret and parameters
 * params (in parentheses): on x86_64 its C body interpose_fn_entry, with
 * the caller's rbp (INTERPOSE_CALLER_BP) as one parameter more, in
 * register bp_reg, after the stub (stub: INTERPOSE_BP_STUB or _LIBC).
 */
#define INTERPOSE_BP_ENTRY(ret, fn, stub, bp_reg, ...)                        \
	ret interpose_##fn##_entry(__VA_ARGS__, uint64_t caller_bp);          \
	stub(fn, bp_reg);                                                     \
	ret interpose_##fn##_entry(__VA_ARGS__, uint64_t caller_bp)
#define INTERPOSE_CALLER_BP caller_bp
#else
#define INTERPOSE_BP_ENTRY(ret, fn, stub, bp_reg, ...) PRELOAD_API ret fn(__VA_ARGS__)
#define INTERPOSE_CALLER_BP ((uint64_t)0) /* not read: INTERPOSE_ENTRY_BP_KNOWN is 0 */
#endif

/* A sampled or stopped run's unrecorded malloc goes to the C library in a
 * few instructions (each one on the way costs in a tight allocation loop). */
INTERPOSE_BP_ENTRY(void *, malloc, INTERPOSE_BP_STUB, "rsi", size_t size_bytes)
{
	struct preload_thread *t = preload_tls;

	if (interpose_fast(t, size_bytes))
		return ALLOC_RETRIED(real.malloc(size_bytes));
	return interpose_malloc(size_bytes, CALLER_IP, CALLER_CFA, INTERPOSE_CALLER_BP);
}

/* A free past its fast paths (interpose_free_unrecorded), through table r:
 * the free of a block that may have been recorded. */
INTERPOSE_VIA void interpose_free_recorded_via(const struct real_allocator *r, void *p,
					       unsigned fn)
{
	struct preload_thread *t;
	int size_class;
	uint64_t seq;

	t = preload_thread_enter();
	if (!t) {
		void (*real_free)(void *) = real_get_from(r, free);

		/* A signal handler that interrupted the recorder cannot record a
		 * free.  In set mode a block that was not sampled needs no
		 * record; a sampled one leaves the set now (counted as an
		 * unrecorded free), or a later block at its address would be
		 * taken for it. */
		if (control_uses_set && preload_thread_nested() && real_free &&
		    sample_set_remove_nested(p) == 0) {
			real_free(p);
			return;
		}
		/* a thread without a slot: recorded in the meta stream */
		if (real_free && !fallback_owns(p) && thread_free_slotless(fn, p)) {
			real_free(p);
			return;
		}
		fallback_free(r, p);
		return;
	}
	if (control_uses_set && !sample_set_remove(p)) {
		preload_thread_leave(t);
		r->free(p); /* not recorded: no record */
		return;
	}
	/* The record goes before the real free (its number was taken before,
	 * as the contract wants), so the thread is not busy inside free. */
	seq = event_seq_next(t);
	size_class = event_free_class(p);
	event_free(t, fn, seq, p, size_class);
	preload_thread_leave(t);
	r->free(p);
}

static __attribute__((noinline)) void interpose_free_recorded(void *p, unsigned fn)
{
	interpose_free_recorded_via(&real, p, fn);
}

static __attribute__((noinline)) void interpose_libc_free_recorded(void *p, unsigned fn)
{
	interpose_free_recorded_via(&real_libc, p, fn);
}

/*
 * The fast paths of every free, through table r: whether free(p) is done
 * without a record.  In set mode (sampled or paused runs) a block whose
 * bucket of the set is empty was not recorded: it goes to the C library
 * with no thread state, record or lock, in a few instructions (in a loop
 * of frees that each wait for a cache miss, every instruction on the way
 * to the C library's free costs).
 */
INTERPOSE_VIA int interpose_free_unrecorded(const struct real_allocator *r, void *p)
{
	if (!p)
		return 1;
	if (fallback_owns(p)) {
		fallback_release(p);
		return 1;
	}
	if (control_uses_set && !sample_set_may_hold(p)) {
		r->free(p);
		return 1;
	}
	return 0;
}

/* The common body of free, free_sized and free_aligned_sized. */
static inline void interpose_free(void *p, unsigned fn)
{
	if (!interpose_free_unrecorded(&real, p))
		interpose_free_recorded(p, fn);
}

PRELOAD_API void free(void *p)
{
	interpose_free(p, TRACE_FREE_FREE);
}

#if defined(HAVE_FREE_SIZED) || defined(HAVE_FREE_ALIGNED_SIZED)
/* Whether free_sized and free_aligned_sized forward to a foreign free
 * unrecorded (real.h): the block is that allocator's, and its free records
 * the call if it reaches the shim (__libc_free, or the next free). */
static inline int interpose_free_forwarded(void *p)
{
	void (*foreign_free)(void *) = real.foreign_free;

	if (__builtin_expect(!foreign_free, 1))
		return 0;
	foreign_free(p);
	return 1;
}
#endif

#ifdef HAVE_FREE_SIZED
/* free_sized(p, n) is free(p) for a block of n bytes: recorded as such. */
PRELOAD_API void free_sized(void *p, size_t size_bytes)
{
	(void)size_bytes;
	if (!interpose_free_forwarded(p))
		interpose_free(p, TRACE_FREE_SIZED);
}
#endif

#ifdef HAVE_FREE_ALIGNED_SIZED
PRELOAD_API void free_aligned_sized(void *p, size_t align_bytes, size_t size_bytes)
{
	(void)align_bytes;
	(void)size_bytes;
	if (!interpose_free_forwarded(p))
		interpose_free(p, TRACE_FREE_ALIGNED_SIZED);
}
#endif

/* calloc past its fast path, through table r (caller_ip and caller_cfa:
 * the entry point's caller; caller_bp as malloc's). */
INTERPOSE_VIA void *interpose_calloc_via(const struct real_allocator *r, size_t n,
					 size_t size_bytes, void *caller_ip, void *caller_cfa,
					 uint64_t caller_bp, int caller_bp_known)
{
	struct preload_thread *t = preload_thread_enter();
	int overflow;
	size_t total = interpose_mul(n, size_bytes, &overflow);
	void *p;

	if (!t)
		return fallback_calloc(r, n, size_bytes);
	preload_thread_leave(t);
	p = ALLOC_RETRIED(r->calloc(n, size_bytes));
	preload_thread_resume(t);
	if (p && !overflow)
		interpose_alloc_record_bp(t, TRACE_FN_CALLOC, p, total, caller_ip, caller_cfa,
					  caller_bp, caller_bp_known);
	preload_thread_leave(t);
	return p;
}

static __attribute__((noinline)) void *interpose_calloc(size_t n, size_t size_bytes,
							void *caller_ip, void *caller_cfa,
							uint64_t caller_bp)
{
	return interpose_calloc_via(&real, n, size_bytes, caller_ip, caller_cfa, caller_bp,
				    INTERPOSE_ENTRY_BP_KNOWN);
}

static __attribute__((noinline)) void *interpose_libc_calloc(size_t n, size_t size_bytes,
							     void *caller_ip, void *caller_cfa,
							     uint64_t caller_bp)
{
	return interpose_calloc_via(&real_libc, n, size_bytes, caller_ip, caller_cfa, caller_bp,
				    INTERPOSE_ENTRY_BP_KNOWN);
}

/* As malloc: a sampled or stopped run's unrecorded calloc goes straight to
 * the C library (one that overflows fails there, unrecorded either way). */
INTERPOSE_BP_ENTRY(void *, calloc, INTERPOSE_BP_STUB, "rdx", size_t n, size_t size_bytes)
{
	struct preload_thread *t = preload_tls;
	int overflow;
	size_t total = interpose_mul(n, size_bytes, &overflow);

	if (!overflow && interpose_fast(t, total))
		return ALLOC_RETRIED(real.calloc(n, size_bytes));
	return interpose_calloc(n, size_bytes, CALLER_IP, CALLER_CFA, INTERPOSE_CALLER_BP);
}

/*
 * realloc(old, n) through table r, old not null, in set mode: the release of old is
 * recorded when old was recorded (it leaves the set before the real call and
 * comes back if the call fails), the new block when the sampler picks it,
 * as a fresh decision at its full size.  Both: one REALLOC record; only
 * the new block: an ALLOC record of the realloc entry point; only the old
 * one: a FREE record of TRACE_FREE_REALLOC_RELEASE (free_fn for realloc(p,
 * 0) that freed).
 */
static __attribute__((noinline)) void *interpose_realloc_sampled(const struct real_allocator *r,
								  struct preload_thread *t,
								  void *old, size_t size_bytes,
								  unsigned alloc_fn,
								  unsigned free_fn,
								  void *caller_ip,
								  void *caller_cfa)
{
	int old_sampled = sample_set_remove(old), old_size_class = -1;
	/* Before the seq of the free part: a CONTROL record this may write
	 * takes a seq of its own, and seqs of a slot only grow. */
	int recording = control_recording(t);
	uint64_t seq_free = 0, weight;
	void *p;

	if (old_sampled) {
		seq_free = event_seq_next(t);
		old_size_class = event_free_class(old);
	}
	p = interpose_real_realloc(r, old, size_bytes);
	if (!p) {
		if (old_sampled && size_bytes == 0) {
			event_free(t, free_fn, seq_free, old, old_size_class);
		} else if (old_sampled) {
			if (sample_set_insert(old) < 0)
				event_free(t, free_fn, seq_free, old, old_size_class);
			else
				event_seq_skip(t, seq_free);
		}
		return p;
	}
	weight = recording ? sample_weight(t, size_bytes) : 0;
	if (weight && sample_set_insert(p) < 0)
		weight = 0;
	if (old_sampled && weight)
		event_realloc(t, alloc_fn, seq_free, old, old_size_class, p, size_bytes, weight,
			      caller_ip, caller_cfa);
	else if (old_sampled)
		event_free(t, TRACE_FREE_REALLOC_RELEASE, seq_free, old, old_size_class);
	else if (weight)
		event_alloc(t, alloc_fn, p, size_bytes, weight, caller_ip, caller_cfa);
	return p;
}

/*
 * realloc and reallocarray past their fast paths, through table r (t the
 * thread entered, size_bytes already checked for overflow):
 * realloc(NULL, n) is an allocation; realloc(p, 0) that returns NULL freed
 * p (glibc); a successful realloc(p, n) is one REALLOC record; a failed
 * one leaves p alone and skips the seq it took.
 */
static __attribute__((noinline)) void *interpose_realloc_entered(const struct real_allocator *r,
								   struct preload_thread *t,
								   void *old, size_t size_bytes,
								   unsigned alloc_fn,
								   unsigned free_fn,
								   void *caller_ip,
								   void *caller_cfa)
{
	int old_size_class, recording;
	uint64_t seq_free, weight;
	void *p;

	if (!old) {
		preload_thread_leave(t);
		p = interpose_real_realloc(r, NULL, size_bytes);
		preload_thread_resume(t);
		if (p)
			interpose_alloc_record(t, alloc_fn, p, size_bytes, caller_ip, caller_cfa);
		return p;
	}
	if (control_uses_set)
		return interpose_realloc_sampled(r, t, old, size_bytes, alloc_fn, free_fn,
						 caller_ip, caller_cfa);
	recording = control_recording(t); /* before seq_free, as above */
	seq_free = event_seq_next(t);
	old_size_class = event_free_class(old);
	p = interpose_real_realloc(r, old, size_bytes);
	if (p && recording && (weight = sample_weight(t, size_bytes)) != 0)
		event_realloc(t, alloc_fn, seq_free, old, old_size_class, p, size_bytes, weight,
			      caller_ip, caller_cfa);
	else if (p)
		event_free(t, TRACE_FREE_REALLOC_RELEASE, seq_free, old, old_size_class);
	else if (size_bytes == 0)
		event_free(t, free_fn, seq_free, old, old_size_class);
	else
		event_seq_skip(t, seq_free);
	return p;
}

/* realloc or reallocarray of a block of the shim's own (bootstrap arena,
 * nested heap), through table r: for the program, a fresh allocation
 * (counted as unrecorded when it cannot be recorded). */
static void *interpose_realloc_own(const struct real_allocator *r, void *old, size_t size_bytes,
				   unsigned alloc_fn, void *caller_ip, void *caller_cfa)
{
	int from_real;
	void *p = fallback_realloc_own(r, old, size_bytes, &from_real);

	if (p && from_real)
		record_path_alloc_after(alloc_fn, p, size_bytes, caller_ip, caller_cfa, 0, 0);
	return p;
}

/*
 * Whether realloc(old, size_bytes) surely neither releases a recorded block
 * nor makes one, decided on the fast path: in set mode old is null or its
 * bucket of the set is empty (as free decides), and the new block is not
 * recorded (interpose_unrecorded, which takes its bytes from the
 * countdown, so it comes last).  realloc(old, 0) takes the full path.
 */
static inline int interpose_realloc_unrecorded(struct preload_thread *t, const void *old,
					       size_t size_bytes)
{
	return control_uses_set &&
	       (!old || (size_bytes && !fallback_owns(old) && !sample_set_may_hold(old))) &&
	       interpose_fast(t, size_bytes);
}

/*
 * The body of realloc and reallocarray through table r (size_bytes already
 * checked for overflow; alloc_fn and free_fn: the entry point's codes;
 * caller_ip and caller_cfa: its caller).
 */
INTERPOSE_VIA void *interpose_realloc_via(const struct real_allocator *r, void *old,
					  size_t size_bytes, unsigned alloc_fn, unsigned free_fn,
					  void *caller_ip, void *caller_cfa, uint64_t caller_bp,
					  int caller_bp_known)
{
	struct preload_thread *t = preload_tls;
	void *p;

	if (interpose_realloc_unrecorded(t, old, size_bytes))
		return interpose_real_realloc(r, old, size_bytes);
	if (fallback_owns(old))
		return interpose_realloc_own(r, old, size_bytes, alloc_fn, caller_ip, caller_cfa);
	t = preload_thread_enter();
	if (!t && old &&
	    thread_free_slotless(size_bytes ? TRACE_FREE_REALLOC_RELEASE : free_fn, old)) {
		/* a thread without a slot: old's release is recorded before the
		 * call, as any free's; the new block, or old itself when the call
		 * fails and keeps it, lives on unrecorded */
		p = interpose_real_realloc(r, old, size_bytes);
		if (p || size_bytes)
			preload_count_unrecorded(0);
		return p;
	}
	if (!t)
		return fallback_realloc(r, old, size_bytes);
	/* (a recorded call of a signal handler while the real realloc runs
	 * leaves entry_bp_cfa 0: this call's stack is then captured) */
	if (caller_bp_known) {
		t->entry_bp = caller_bp;
		t->entry_bp_cfa = (uintptr_t)caller_cfa;
	}
	p = interpose_realloc_entered(r, t, old, size_bytes, alloc_fn, free_fn, caller_ip,
				      caller_cfa);
	t->entry_bp_cfa = 0;
	preload_thread_leave(t);
	return p;
}

/* reallocarray through table r: realloc of n * size_bytes, ENOMEM when
 * that overflows. */
INTERPOSE_VIA void *interpose_reallocarray_via(const struct real_allocator *r, void *old,
					       size_t n, size_t size_bytes, void *caller_ip,
					       void *caller_cfa, uint64_t caller_bp)
{
	size_t total;

	if (!interpose_array_bytes(n, size_bytes, &total))
		return NULL;
	return interpose_realloc_via(r, old, total, TRACE_FN_REALLOCARRAY, TRACE_FREE_REALLOCARRAY,
				     caller_ip, caller_cfa, caller_bp, INTERPOSE_ENTRY_BP_KNOWN);
}

INTERPOSE_BP_ENTRY(void *, realloc, INTERPOSE_BP_STUB, "rdx", void *old, size_t size_bytes)
{
	return interpose_realloc_via(&real, old, size_bytes, TRACE_FN_REALLOC, TRACE_FREE_REALLOC,
				     CALLER_IP, CALLER_CFA, INTERPOSE_CALLER_BP,
				     INTERPOSE_ENTRY_BP_KNOWN);
}

/* A foreign realloc (real.h) is reached unrecorded, as the C library's
 * reallocarray reaches it: it records the call if it reaches the shim
 * (__libc_realloc, or the next realloc). */
INTERPOSE_BP_ENTRY(void *, reallocarray, INTERPOSE_BP_STUB, "rcx", void *old, size_t n,
		   size_t size_bytes)
{
	void *(*foreign_realloc)(void *, size_t) = real.foreign_realloc;
	size_t total;

	if (__builtin_expect(foreign_realloc != NULL, 0)) {
		if (!interpose_array_bytes(n, size_bytes, &total))
			return NULL;
		return foreign_realloc(old, total);
	}
	return interpose_reallocarray_via(&real, old, n, size_bytes, CALLER_IP, CALLER_CFA,
					  INTERPOSE_CALLER_BP);
}

INTERPOSE_BP_ENTRY(int, posix_memalign, INTERPOSE_BP_STUB, "rcx", void **out,
		   size_t align_bytes, size_t size_bytes)
{
	struct preload_thread *t = preload_tls;
	int rc;

	if (interpose_fast(t, size_bytes))
		return interpose_real_posix_memalign(out, align_bytes, size_bytes);
	t = preload_thread_enter();
	if (!t)
		return fallback_posix_memalign(out, align_bytes, size_bytes);
	preload_thread_leave(t);
	rc = interpose_real_posix_memalign(out, align_bytes, size_bytes);
	preload_thread_resume(t);
	if (rc == 0)
		interpose_alloc_record_bp(t, TRACE_FN_POSIX_MEMALIGN, *out, size_bytes, CALLER_IP,
					  CALLER_CFA, INTERPOSE_CALLER_BP, INTERPOSE_ENTRY_BP_KNOWN);
	preload_thread_leave(t);
	return rc;
}

INTERPOSE_BP_ENTRY(void *, aligned_alloc, INTERPOSE_BP_STUB, "rdx", size_t align_bytes,
		   size_t size_bytes)
{
	struct preload_thread *t = preload_tls;
	void *p;

	if (interpose_fast(t, size_bytes))
		return ALLOC_RETRIED(real.aligned_alloc(align_bytes, size_bytes));
	t = preload_thread_enter();
	if (!t)
		return fallback_aligned_alloc(align_bytes, size_bytes);
	preload_thread_leave(t);
	p = ALLOC_RETRIED(real.aligned_alloc(align_bytes, size_bytes));
	preload_thread_resume(t);
	if (p)
		interpose_alloc_record_bp(t, TRACE_FN_ALIGNED_ALLOC, p, size_bytes, CALLER_IP,
					  CALLER_CFA, INTERPOSE_CALLER_BP, INTERPOSE_ENTRY_BP_KNOWN);
	preload_thread_leave(t);
	return p;
}

/* memalign through table r (caller_ip and caller_cfa: the entry point's
 * caller; caller_bp as malloc's). */
INTERPOSE_VIA void *interpose_memalign_via(const struct real_allocator *r, size_t align_bytes,
					   size_t size_bytes, void *caller_ip, void *caller_cfa,
					   uint64_t caller_bp)
{
	struct preload_thread *t = preload_tls;
	void *p;

	if (interpose_fast(t, size_bytes))
		return ALLOC_RETRIED(r->memalign(align_bytes, size_bytes));
	t = preload_thread_enter();
	if (!t)
		return fallback_memalign(r, align_bytes, size_bytes);
	preload_thread_leave(t);
	p = ALLOC_RETRIED(r->memalign(align_bytes, size_bytes));
	preload_thread_resume(t);
	if (p)
		interpose_alloc_record_bp(t, TRACE_FN_MEMALIGN, p, size_bytes, caller_ip, caller_cfa,
					  caller_bp, INTERPOSE_ENTRY_BP_KNOWN);
	preload_thread_leave(t);
	return p;
}

/* valloc through table r (caller_ip and caller_cfa: the entry point's
 * caller; caller_bp as malloc's). */
INTERPOSE_VIA void *interpose_valloc_via(const struct real_allocator *r, size_t size_bytes,
					 void *caller_ip, void *caller_cfa, uint64_t caller_bp)
{
	struct preload_thread *t = preload_tls;
	void *p;

	if (interpose_fast(t, size_bytes))
		return ALLOC_RETRIED(r->valloc(size_bytes));
	t = preload_thread_enter();
	if (!t)
		return fallback_valloc(r, size_bytes);
	preload_thread_leave(t);
	p = ALLOC_RETRIED(r->valloc(size_bytes));
	preload_thread_resume(t);
	if (p)
		interpose_alloc_record_bp(t, TRACE_FN_VALLOC, p, size_bytes, caller_ip, caller_cfa,
					  caller_bp, INTERPOSE_ENTRY_BP_KNOWN);
	preload_thread_leave(t);
	return p;
}

/* pvalloc through table r, recorded with the size the program asked for,
 * not the page-rounded size glibc actually reserves (mprof-trace(5), ALLOC
 * fn 8). */
INTERPOSE_VIA void *interpose_pvalloc_via(const struct real_allocator *r, size_t size_bytes,
					  void *caller_ip, void *caller_cfa, uint64_t caller_bp)
{
	struct preload_thread *t = preload_tls;
	void *p;

	if (interpose_fast(t, size_bytes))
		return ALLOC_RETRIED(r->pvalloc(size_bytes));
	t = preload_thread_enter();
	if (!t)
		return fallback_pvalloc(r, size_bytes);
	preload_thread_leave(t);
	p = ALLOC_RETRIED(r->pvalloc(size_bytes));
	preload_thread_resume(t);
	if (p)
		interpose_alloc_record_bp(t, TRACE_FN_PVALLOC, p, size_bytes, caller_ip, caller_cfa,
					  caller_bp, INTERPOSE_ENTRY_BP_KNOWN);
	preload_thread_leave(t);
	return p;
}

INTERPOSE_BP_ENTRY(void *, memalign, INTERPOSE_BP_STUB, "rdx", size_t align_bytes,
		   size_t size_bytes)
{
	return interpose_memalign_via(&real, align_bytes, size_bytes, CALLER_IP, CALLER_CFA,
				      INTERPOSE_CALLER_BP);
}

INTERPOSE_BP_ENTRY(void *, valloc, INTERPOSE_BP_STUB, "rsi", size_t size_bytes)
{
	return interpose_valloc_via(&real, size_bytes, CALLER_IP, CALLER_CFA, INTERPOSE_CALLER_BP);
}

INTERPOSE_BP_ENTRY(void *, pvalloc, INTERPOSE_BP_STUB, "rsi", size_t size_bytes)
{
	return interpose_pvalloc_via(&real, size_bytes, CALLER_IP, CALLER_CFA, INTERPOSE_CALLER_BP);
}

/*
 * The C library's internal entry points, through real_libc.  Each is its
 * public namesake: a program whose own malloc calls __libc_malloc gets each
 * block recorded once, here, its malloc being the caller (the report drops
 * a frame named malloc as an allocator wrapper).  __libc_reallocarray
 * calls __libc_realloc, as reallocarray calls realloc: the C library's
 * would call the public realloc, which is a foreign one's when the program
 * has one.  Those that allocate read their caller's rbp as malloc does.
 */
INTERPOSE_BP_ENTRY(void *, __libc_malloc, INTERPOSE_BP_STUB_LIBC, "rsi", size_t size_bytes)
{
	struct preload_thread *t = preload_tls;

	if (interpose_fast(t, size_bytes))
		return ALLOC_RETRIED(real_libc.malloc(size_bytes));
	return interpose_libc_malloc(size_bytes, CALLER_IP, CALLER_CFA, INTERPOSE_CALLER_BP);
}

PRELOAD_API void __libc_free(void *p)
{
	if (!interpose_free_unrecorded(&real_libc, p))
		interpose_libc_free_recorded(p, TRACE_FREE_FREE);
}

INTERPOSE_BP_ENTRY(void *, __libc_calloc, INTERPOSE_BP_STUB_LIBC, "rdx", size_t n,
		   size_t size_bytes)
{
	struct preload_thread *t = preload_tls;
	int overflow;
	size_t total = interpose_mul(n, size_bytes, &overflow);

	if (!overflow && interpose_fast(t, total))
		return ALLOC_RETRIED(real_libc.calloc(n, size_bytes));
	return interpose_libc_calloc(n, size_bytes, CALLER_IP, CALLER_CFA, INTERPOSE_CALLER_BP);
}

INTERPOSE_BP_ENTRY(void *, __libc_realloc, INTERPOSE_BP_STUB_LIBC, "rdx", void *old,
		   size_t size_bytes)
{
	return interpose_realloc_via(&real_libc, old, size_bytes, TRACE_FN_REALLOC,
				     TRACE_FREE_REALLOC, CALLER_IP, CALLER_CFA, INTERPOSE_CALLER_BP,
				     INTERPOSE_ENTRY_BP_KNOWN);
}

INTERPOSE_BP_ENTRY(void *, __libc_reallocarray, INTERPOSE_BP_STUB_LIBC, "rcx", void *old,
		   size_t n, size_t size_bytes)
{
	return interpose_reallocarray_via(&real_libc, old, n, size_bytes, CALLER_IP, CALLER_CFA,
					  INTERPOSE_CALLER_BP);
}

INTERPOSE_BP_ENTRY(void *, __libc_memalign, INTERPOSE_BP_STUB_LIBC, "rdx", size_t align_bytes,
		   size_t size_bytes)
{
	return interpose_memalign_via(&real_libc, align_bytes, size_bytes, CALLER_IP, CALLER_CFA,
				      INTERPOSE_CALLER_BP);
}

INTERPOSE_BP_ENTRY(void *, __libc_valloc, INTERPOSE_BP_STUB_LIBC, "rsi", size_t size_bytes)
{
	return interpose_valloc_via(&real_libc, size_bytes, CALLER_IP, CALLER_CFA,
				    INTERPOSE_CALLER_BP);
}

INTERPOSE_BP_ENTRY(void *, __libc_pvalloc, INTERPOSE_BP_STUB_LIBC, "rsi", size_t size_bytes)
{
	return interpose_pvalloc_via(&real_libc, size_bytes, CALLER_IP, CALLER_CFA,
				     INTERPOSE_CALLER_BP);
}

/* Not recorded; answers for the shim's own blocks too. */
PRELOAD_API size_t malloc_usable_size(void *p)
{
	size_t (*fn)(void *);

	if (fallback_owns(p))
		return fallback_size(p);
	fn = real_get(malloc_usable_size);
	return fn ? fn(p) : 0;
}

/*
 * dlclose, bracketed by modules_close_begin/end: from before the unload
 * until a rescan after it, every capture rescans first and reuses no cached
 * stack, so that a library loaded at the same address (by another thread,
 * before this one returns) never inherits the frames of the one closed.
 * The real dlclose runs with the thread not busy: the frees the loader
 * makes are recorded like any other.  A library dlmopen() loaded into a
 * namespace of its own is named first, while it is there.
 */
PRELOAD_API int dlclose(void *handle)
{
	int (*fn)(void *) = real_get(dlclose);
	int rc;

	if (!fn)
		fn = (int (*)(void *))dlsym(RTLD_NEXT, "dlclose");
	if (!fn)
		return -1;
	namespaces_look();
	modules_close_begin();
	rc = fn(handle);
	modules_close_end();
	return rc;
}

/* The entry points above under hidden names, which the shim reaches
 * directly, not through the program's symbol lookup (which may find a
 * foreign allocator's): preload/deep_bind.c points modules at them. */
#define INTERPOSE_SELF(fn) \
	extern __typeof(fn) deep_bind_self_##fn __attribute__((alias(#fn), copy(fn), visibility("hidden")))
#if defined(__x86_64__)
extern __typeof(malloc) deep_bind_self_malloc __attribute__((visibility("hidden")));
extern __typeof(calloc) deep_bind_self_calloc __attribute__((visibility("hidden")));
extern __typeof(realloc) deep_bind_self_realloc __attribute__((visibility("hidden")));
extern __typeof(reallocarray) deep_bind_self_reallocarray __attribute__((visibility("hidden")));
extern __typeof(posix_memalign) deep_bind_self_posix_memalign
	__attribute__((visibility("hidden")));
extern __typeof(aligned_alloc) deep_bind_self_aligned_alloc __attribute__((visibility("hidden")));
extern __typeof(memalign) deep_bind_self_memalign __attribute__((visibility("hidden")));
extern __typeof(valloc) deep_bind_self_valloc __attribute__((visibility("hidden")));
extern __typeof(pvalloc) deep_bind_self_pvalloc __attribute__((visibility("hidden")));
#else
INTERPOSE_SELF(malloc);
INTERPOSE_SELF(calloc);
INTERPOSE_SELF(realloc);
INTERPOSE_SELF(reallocarray);
INTERPOSE_SELF(posix_memalign);
INTERPOSE_SELF(aligned_alloc);
INTERPOSE_SELF(memalign);
INTERPOSE_SELF(valloc);
INTERPOSE_SELF(pvalloc);
#endif
INTERPOSE_SELF(free);
