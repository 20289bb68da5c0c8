/*
 * preload/unwind.c - call-stack capture: the shim's own CFI unwinder
 * (preload/unwind_fast.c) by default, libunwind's unw_backtrace as its
 * fallback and on request (MPROF_UNWIND=libunwind), both with a comparison
 * (MPROF_UNWIND=check), or the frame-pointer chain (MPROF_UNWIND=fp).
 *
 * Owns the unwinder selection, the libunwind handle, the shim's code range
 * (frames inside it are the profiler's, not the program's), each thread's
 * stack bounds (learnt at its first capture), the fallback and check
 * counters and the fork guard around the unwinders.  libunwind is loaded at
 * run time and never linked: its _Unwind_* exports would otherwise capture
 * the target's C++ exceptions; in the default mode only when first needed
 * (its dlopen is most of a short process's start-up), at a point where no
 * thread can hold the loader's lock.  Without any unwinder, stacks are one
 * frame (the caller of the allocator).  Must never call malloc; a call into
 * libunwind is an own call (preload/own_call.h): what it allocates (its
 * dynamic TLS, its cache's pthread key) goes to the nested heap.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <gnu/libc-version.h>
#include <link.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/single_threaded.h>
#include <sys/syscall.h>
#include <sys/ucontext.h>
#include <sys/uio.h>
#include <sys/resource.h>
#include <unistd.h>

#include "config.h"
#include "preload/diag.h"
#include "preload/init.h"
#include "preload/libunwind_fds.h"
#include "preload/lock.h"
#include "preload/modules.h"
#include "preload/own_call.h"
#include "preload/real.h"
#include "preload/rec_stack.h"
#include "preload/seccomp_watch.h"
#include "preload/settings.h"
#include "preload/stack_table.h"
#include "preload/sys.h"
#include "preload/text.h"
#include "preload/unwind.h"
#include "preload/unwind_fast.h"
#include "preload/wait.h"

#define UNWIND_CACHE_PER_THREAD 2 /* libunwind's UNW_CACHE_PER_THREAD */

/* Main-thread stack size assumed when RLIMIT_STACK is unlimited or huge. */
#define UNWIND_MAIN_STACK_MAX_BYTES (1ull << 30)
#define UNWIND_MAIN_STACK_DEFAULT_BYTES (8ull << 20)

/* The main thread's stack size kept before a filter came (0: none kept). */
static uint64_t unwind_main_stack_kept_bytes;

/* stack_lo == stack_hi == this: the thread's stack is unknown (libunwind only). */
#define UNWIND_STACK_UNKNOWN ((uintptr_t)1)

typedef int (*unwind_backtrace_fn)(void **buffer, int size);
typedef int (*unwind_set_caching_fn)(void *addr_space, int policy);

/* The loader's record of the initial stack pointer (the main thread's stack). */
extern void *__libc_stack_end;

static unwind_backtrace_fn unwind_backtrace;

/* libunwind's loading: 0 not tried, 1 under way, 2 done (loaded or not).
 * In the default mode it waits for the first capture the own unwinder
 * gives up on (wanted, which is then cut: the caller's frame, marked
 * truncated) and is loaded at the next safe point: the first
 * pthread_create, or a later capture of a single-threaded process whose
 * whole stack shows no frame of the loader or the C library holding a
 * lock of the loader's (unwind_lib_safe_here). */
static _Atomic int unwind_lib_state, unwind_lib_wanted;
static _Atomic uint64_t unwind_lib_cut;

/* libunwind's caching policy is set at its first use, not at start: the
 * call runs libunwind's own set-up (0.2-0.3 ms), which a process whose
 * stacks the own unwinder all walks never needs.  Its state: 0 unset, 1
 * being set by one thread, 2 set. */
static unwind_set_caching_fn unwind_set_caching;
static void *unwind_addr_space;
static _Atomic int unwind_caching_state;
static uintptr_t unwind_self_start, unwind_self_end;
static int unwind_mode;
int unwind_check_mode; /* unwind_mode == UNWIND_MODE_CHECK, for unwind_checking */

/* Set while a fork is in progress: threads stay out of the unwinder, so the
 * child never inherits a lock libunwind (or the CFI cache) held in another
 * thread. */
static _Atomic int unwind_fork_pending;

/* Captures made in check mode, how many differed from libunwind, how many
 * reused frames of the previous capture and how many of those differed from
 * a full walk, and how many times the own unwinder gave up (any mode). */
static _Atomic uint64_t unwind_check_captures, unwind_check_mismatches, unwind_fallbacks;
static _Atomic uint64_t unwind_check_cached, unwind_check_cache_mismatches,
	unwind_check_site_hits;
static struct preload_lock unwind_check_lock;

/* dl_iterate_phdr callback: finds the executable range of the shim itself. */
static int unwind_self_scan(struct dl_phdr_info *info, size_t size, void *arg)
{
	uintptr_t self = (uintptr_t)arg, lo = UINTPTR_MAX, hi = 0;
	int mine = 0;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t start = info->dlpi_addr + ph->p_vaddr, end = start + ph->p_memsz;

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		if (self >= start && self < end)
			mine = 1;
		if (start < lo)
			lo = start;
		if (end > hi)
			hi = end;
	}
	if (!mine)
		return 0;
	unwind_self_start = lo;
	unwind_self_end = hi;
	return 1;
}

/* MPROF_UNWIND: "dwarf" (or unset), "libunwind", "check", "fp". */
static int unwind_mode_read(void)
{
	const char *s = preload_getenv(UNWIND_ENV_MODE);

	if (!s || !*s)
		return UNWIND_MODE_CFI;
	if (strcmp(s, "libunwind") == 0)
		return UNWIND_MODE_LIBUNWIND;
	if (strcmp(s, "check") == 0)
		return UNWIND_MODE_CHECK;
	if (strcmp(s, "fp") == 0)
		return UNWIND_MODE_FP;
	return UNWIND_MODE_CFI;
}

/* The load biases of the modules the load of libunwind added (libunwind
 * and the libraries it brought that were not loaded: liblzma); none when
 * the program had loaded libunwind itself.  Set once, before state 2. */
#define UNWIND_LIB_MODULES 4
static uintptr_t unwind_lib_modules[UNWIND_LIB_MODULES];

/* Notes the modules from lib's on in the loader's list, which right after
 * the load that added lib (one thread) are the ones it added. */
static void unwind_lib_note_modules(void *lib)
{
	struct link_map *lm = NULL;

	if (dlinfo(lib, RTLD_DI_LINKMAP, &lm) != 0)
		return;
	for (int i = 0; lm && i < UNWIND_LIB_MODULES; lm = lm->l_next, i++)
		unwind_lib_modules[i] = lm->l_addr;
}

int unwind_lib_added_module(uintptr_t load_bias)
{
	if (atomic_load_explicit(&unwind_lib_state, memory_order_acquire) != 2 || !load_bias)
		return 0;
	for (int i = 0; i < UNWIND_LIB_MODULES; i++)
		if (unwind_lib_modules[i] == load_bias)
			return 1;
	return 0;
}

/* dlopen's libunwind and finds its entry points, once; the caller is not
 * inside an allocation of a thread that could hold the loader's lock, and
 * is inside an own call (what the loader allocates is the recorder's). */
static void unwind_lib_load(void)
{
	int expected = 0, loaded;
	void *lib, *addr_space;

	if (!atomic_compare_exchange_strong(&unwind_lib_state, &expected, 1))
		return;
	lib = dlopen(MPROF_LIBUNWIND, RTLD_LOCAL | RTLD_NOW | RTLD_NOLOAD);
	loaded = lib != NULL;
	if (lib)
		dlclose(lib);
	lib = dlopen(MPROF_LIBUNWIND, RTLD_LOCAL | RTLD_NOW);
	if (lib && !loaded)
		unwind_lib_note_modules(lib);
	if (lib && libunwind_fds_bind(lib) < 0) {
		diag_report(TRACE_DIAG_INFO, "libunwind is not used: its memory checks could "
					     "not be kept off the program's descriptors; a frame "
					     "without unwind information ends the call stack");
		lib = NULL;
	}
	if (lib) {
		unwind_set_caching =
			(unwind_set_caching_fn)dlsym(lib, "_ULx86_64_set_caching_policy");
		addr_space = dlsym(lib, "_ULx86_64_local_addr_space");
		unwind_addr_space = addr_space ? *(void **)addr_space : NULL;
		unwind_backtrace = (unwind_backtrace_fn)dlsym(lib, "unw_backtrace");
	}
	atomic_store_explicit(&unwind_lib_state, 2, memory_order_release);
}

static void unwind_args_learn(void);

int unwind_init(void)
{
	unwind_args_learn();
	unwind_mode = unwind_mode_read();
#if !defined(__x86_64__)
	unwind_mode = UNWIND_MODE_LIBUNWIND;
#endif
	dl_iterate_phdr(unwind_self_scan, (void *)(uintptr_t)unwind_init);
	if (unwind_mode != UNWIND_MODE_CFI)
		unwind_lib_load();
	if (!unwind_backtrace && unwind_mode == UNWIND_MODE_CHECK)
		unwind_mode = UNWIND_MODE_CFI;
	unwind_check_mode = unwind_mode == UNWIND_MODE_CHECK;
	if (unwind_backtrace || unwind_mode != UNWIND_MODE_LIBUNWIND)
		return 0;
	return -1;
}

void unwind_lib_forgo(void)
{
	int expected = 0;

	atomic_compare_exchange_strong(&unwind_lib_state, &expected, 2);
}

void unwind_threads_coming(void)
{
	struct preload_thread *t;
	struct own_call own;

	/* With a foreign malloc the loader allocates through it, not the
	 * shim: the program's own allocator would serve the recorder's load
	 * (and count its calls). */
	if (unwind_mode != UNWIND_MODE_CFI || seccomp_watch_filtered() ||
	    atomic_load_explicit(&unwind_lib_state, memory_order_acquire) != 0 ||
	    !__libc_single_threaded || __atomic_load_n(&real.foreign, __ATOMIC_ACQUIRE))
		return;
	t = preload_thread_enter(); /* (busy: the loader's allocations are the shim's) */
	if (!t)
		return;
	own_call_enter(&own);
	unwind_lib_load();
	own_call_leave(&own);
	preload_thread_leave(t);
}

static int unwind_in_shim(void *ip)
{
	return (uintptr_t)ip - unwind_self_start < unwind_self_end - unwind_self_start;
}

int unwind_ip_in_shim(const void *ip)
{
	return unwind_in_shim((void *)ip);
}

/*
 * The flag and the fork flag form a Dekker pair (both sequentially
 * consistent): either the fork sees this thread inside and waits, or this
 * thread sees the fork and waits.
 */
void unwind_guard_enter(struct preload_thread *t)
{
	for (;;) {
		atomic_store(&t->in_unwind, 1);
		if (!atomic_load(&unwind_fork_pending))
			return;
		atomic_store(&t->in_unwind, 0);
		while (atomic_load(&unwind_fork_pending))
			preload_yield();
	}
}

void unwind_guard_leave(struct preload_thread *t)
{
	atomic_store_explicit(&t->in_unwind, 0, memory_order_release);
}

/*
 * Sets libunwind's per-thread caching once, before its first walk: the
 * policy is read twice in each walk (to take and to give back the global
 * cache's lock), so no walk may run while it changes; the other threads
 * wait.  Called inside the fork guard, as an own call (signals blocked), so
 * neither a fork nor a handler on the setting thread comes in between.
 * libunwind's set-up takes its own lock and maps memory; it never enters
 * the loader.
 */
static void unwind_caching_set_once(void)
{
	int expected = 0;

	if (atomic_load_explicit(&unwind_caching_state, memory_order_acquire) == 2)
		return;
	if (atomic_compare_exchange_strong(&unwind_caching_state, &expected, 1)) {
		if (unwind_set_caching && unwind_addr_space)
			unwind_set_caching(unwind_addr_space, UNWIND_CACHE_PER_THREAD);
		atomic_store_explicit(&unwind_caching_state, 2, memory_order_release);
		return;
	}
	while (atomic_load_explicit(&unwind_caching_state, memory_order_acquire) != 2)
		preload_yield();
}

/* unw_backtrace into t->frames inside the fork guard, as an own call. */
static uintptr_t unwind_libunwind_here(void *arg)
{
	struct preload_thread *t = arg;
	struct own_call own;
	int n;

	unwind_guard_enter(t);
	own_call_enter(&own);
	unwind_caching_set_once();
	n = unwind_backtrace(t->frames, (int)t->frames_cap);
	own_call_leave(&own);
	unwind_guard_leave(t);
	return n > 0 ? (uintptr_t)n : 0;
}

/* Runs unw_backtrace on the recorder's stack (its walk takes 4-6 KiB,
 * preload/rec_stack.h) and so through the switch into the program's
 * frames; 0 without libunwind. */
static uint32_t unwind_libunwind(struct preload_thread *t)
{
	if (!unwind_backtrace)
		return 0;
	t->frames_from_caller = 0;
	return (uint32_t)rec_stack_call(t, unwind_libunwind_here, t);
}

/* The code of the loader (lo[0], hi[0]) and of the C library (lo[1], hi[1]):
 * the two that take the loader's locks. */
struct unwind_lock_code {
	uintptr_t lo[2], hi[2];
};

/* dl_iterate_phdr callback: the executable range of the loader (its load
 * bias is AT_BASE) and of the C library (holding gnu_get_libc_version). */
static int unwind_lock_code_scan(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct unwind_lock_code *c = arg;
	uintptr_t libc_fn = (uintptr_t)gnu_get_libc_version, lo = UINTPTR_MAX, hi = 0;
	int which;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t start = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		if (start < lo)
			lo = start;
		if (start + ph->p_memsz > hi)
			hi = start + ph->p_memsz;
	}
	which = info->dlpi_addr == getauxval(AT_BASE) ? 0 : libc_fn - lo < hi - lo ? 1 : -1;
	if (which >= 0 && lo < hi) {
		c->lo[which] = lo;
		c->hi[which] = hi;
	}
	return 0;
}

static int unwind_in_range(uint64_t ip, uintptr_t lo, uintptr_t hi)
{
	return ip - lo < hi - lo;
}

/*
 * Whether libunwind may be loaded inside this allocation: the process has
 * one thread, so only this one could hold a lock of the loader's, and its
 * whole stack, t->ips[0, count) (outermost first), shows that it holds
 * none: no frame of the loader, and no frame of the C library but the
 * start-up frames outermost and the allocator's caller (dl_iterate_phdr
 * calling back, _dl_addr under a signal frame hold one).  Read only at
 * captures that follow a cut one, before libunwind is loaded.
 */
static int unwind_lib_safe_here(struct preload_thread *t, uint32_t count)
{
	struct unwind_lock_code c = { { 0, 0 }, { 0, 0 } };
	uint32_t i = 0;

	if (!__libc_single_threaded || !getauxval(AT_BASE))
		return 0;
	dl_iterate_phdr(unwind_lock_code_scan, &c);
	if (!c.hi[0] || !c.hi[1])
		return 0;
	for (uint32_t k = 0; k < count; k++)
		if (unwind_in_range(t->ips[k], c.lo[0], c.hi[0]))
			return 0;
	if (i < count && !unwind_in_range(t->ips[i], c.lo[1], c.hi[1]))
		i++; /* _start */
	while (i < count && unwind_in_range(t->ips[i], c.lo[1], c.hi[1]))
		i++;
	for (; i + 1 < count; i++)
		if (unwind_in_range(t->ips[i], c.lo[1], c.hi[1]))
			return 0;
	return 1;
}

/* After a whole CFI capture of count frames while libunwind is wanted:
 * loads it when this is a safe point (unwind_lib_safe_here). */
static __attribute__((noinline)) void unwind_lib_try(struct preload_thread *t, uint32_t count,
						     int truncated)
{
	struct own_call own;

	if (truncated || t->capture_off_stack || seccomp_watch_filtered() ||
	    atomic_load_explicit(&unwind_lib_state, memory_order_acquire) != 0)
		return;
	stack_table_ips_fill(t);
	if (!unwind_lib_safe_here(t, count))
		return;
	own_call_enter(&own);
	unwind_lib_load();
	own_call_leave(&own);
	atomic_store_explicit(&unwind_lib_wanted, 0, memory_order_relaxed);
}

/*
 * A capture the own unwinder gave up on before libunwind was loaded
 * (default mode): only the allocator's caller, marked truncated, and
 * libunwind is wanted from now on.  The first one is said in a diagnostic.
 */
static __attribute__((noinline)) uint32_t unwind_cut(struct preload_thread *t, void *caller_ip,
						      int *truncated)
{
	if (!atomic_exchange(&unwind_lib_wanted, 1) && !atomic_load(&unwind_lib_cut))
		diag_report(TRACE_DIAG_INFO, "a call stack was cut to its first frame: the "
					     "own unwinder could not walk a frame before "
					     "libunwind, its fallback, was loaded");
	atomic_fetch_add_explicit(&unwind_lib_cut, 1, memory_order_relaxed);
	t->ips[0] = (uint64_t)(uintptr_t)caller_ip;
	*truncated = 1;
	return 1;
}

/*
 * A capture under a seccomp filter that the own unwinder could not make (any,
 * with MPROF_UNWIND=libunwind): only the allocator's caller, marked
 * truncated.  libunwind is neither loaded (dlopen opens files) nor used then:
 * its memory checks and locks are system calls (mincore, rt_sigprocmask,
 * process_vm_readv, futex) a sandbox may kill for.  Said once.
 */
static __attribute__((noinline)) uint32_t unwind_cut_filtered(struct preload_thread *t,
							       void *caller_ip, int *truncated)
{
	static _Atomic int said;

	if (!atomic_exchange(&said, 1))
		diag_note(TRACE_DIAG_INFO, "a call stack was cut to its first frame: under a "
					   "seccomp filter (a sandbox) libunwind is not used, its "
					   "memory checks being system calls the filter may kill for");
	t->ips[0] = (uint64_t)(uintptr_t)caller_ip;
	*truncated = 1;
	return 1;
}

/* How far below a thread's descriptor its stack may reach (its size), and
 * how far below the stack pointer a learnt range reaches at first. */
#define UNWIND_THREAD_STACK_MAX_BYTES (1ull << 30)
#define UNWIND_STACK_MARGIN_BYTES (256u << 10)
#define UNWIND_PAGE_BYTES ((uintptr_t)4096)

/*
 * The lowest page-aligned lo >= want such that [lo, hi) is mapped, given
 * that [known, hi) is to be: msync fails with ENOMEM on an unmapped page and
 * touches none, so one call checks a range and a binary search (at most
 * 6 calls for the margin) finds where the run ends.  0 when [known, hi) is
 * not one mapped run or msync cannot tell (a sandbox may refuse it, or kill
 * for it: not asked under a filter).
 */
static uintptr_t unwind_mapped_floor(uintptr_t want, uintptr_t known, uintptr_t hi)
{
	uintptr_t good = known, bad = want;

	/* an allow-list filter may kill the process for msync */
	if (seccomp_watch_filtered()) {
		errno = EPERM;
		return 0;
	}
	if (sys_msync_check(known, hi - known) != 0)
		return 0;
	if (want == known || sys_msync_check(want, hi - want) == 0)
		return want;
	if (errno != ENOMEM)
		return known;
	while (good - bad > UNWIND_PAGE_BYTES) {
		uintptr_t mid = bad + ((good - bad) / 2 & ~(UNWIND_PAGE_BYTES - 1));

		if (sys_msync_check(mid, hi - mid) == 0)
			good = mid;
		else
			bad = mid;
	}
	return good;
}

/* The top of the main thread's stack (its range never moves: no system
 * call to tell the main thread from the others). */
static uintptr_t unwind_main_stack_top(void)
{
	return ((uintptr_t)__libc_stack_end + 16 + 4095) & ~(uintptr_t)4095;
}

/* The main thread's stack size: RLIMIT_STACK when not unlimited or huge
 * (the kernel keeps [top - RLIMIT_STACK, top) free for the stack, and the
 * page holding argc/argv is mapped). */
static uint64_t unwind_main_stack_bytes(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_STACK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    rl.rlim_cur <= UNWIND_MAIN_STACK_MAX_BYTES)
		return rl.rlim_cur;
	return UNWIND_MAIN_STACK_DEFAULT_BYTES;
}

void unwind_keep_before_filter(void)
{
	unwind_main_stack_kept_bytes = unwind_main_stack_bytes();
}

/* The main thread's stack size now; under a filter, which may kill
 * getrlimit, the one kept before it. */
static uint64_t unwind_main_stack_bytes_now(void)
{
	if (seccomp_watch_filtered() && unwind_main_stack_kept_bytes)
		return unwind_main_stack_kept_bytes;
	return unwind_main_stack_bytes();
}

/* Whether t is the main thread; under a filter, which may kill getpid and
 * gettid, from the ids the recorder keeps. */
static int unwind_on_main_thread(const struct preload_thread *t)
{
	if (seccomp_watch_filtered())
		return (uint32_t)t->tid == preload_proc.view.ns_pid;
	return preload_tid() == getpid();
}

/* The main stack's top above __libc_stack_end, where the kernel put argv,
 * the environment and the auxiliary vector: [lo, hi), 0 and 0 if unknown. */
static uintptr_t unwind_args_lo, unwind_args_hi;

/* Learns that range: its last string is AT_EXECFN's, on the stack's last
 * page. */
static void unwind_args_learn(void)
{
	uintptr_t execfn = (uintptr_t)getauxval(AT_EXECFN), top = unwind_main_stack_top();

	if (!__libc_stack_end || execfn < top)
		return;
	unwind_args_lo = top;
	unwind_args_hi = (execfn + UNWIND_PAGE_BYTES) & ~(UNWIND_PAGE_BYTES - 1);
}

/*
 * Learns the calling thread's stack range, with no lock, no allocation and
 * no call into the C library that could be what is allocating (it used
 * pthread_getattr_np, which allocates while holding the thread's lock: every
 * thread of a Rust, JVM or Ruby program hung on its first capture).  The main
 * thread's range comes from the loader's initial stack pointer and
 * RLIMIT_STACK.  glibc puts another thread's descriptor (the thread pointer)
 * at the top of its stack block, above the static TLS, for the stacks it
 * maps and for stacks given with pthread_attr_setstack alike, so the stack
 * lies below pthread_self(): the range is the mapped run from a margin below
 * the stack pointer up to it, checked with msync, and learnt again further
 * down when the stack pointer goes below it (unwind_stack_fits).  A thread
 * running elsewhere (a coroutine or signal stack that is not in that run)
 * learns nothing now and tries again at its next capture; only a refused
 * msync (a sandbox) leaves UNWIND_STACK_UNKNOWN, for good.
 */
static void unwind_stack_learn(struct preload_thread *t, uintptr_t sp)
{
	uintptr_t sp_page = sp & ~(UNWIND_PAGE_BYTES - 1);
	uintptr_t hi, want, lo;

	t->stack_lo = t->stack_hi = 0;
	if (unwind_on_main_thread(t)) {
		uint64_t bytes = unwind_main_stack_bytes_now();

		t->stack_lo = t->stack_hi = UNWIND_STACK_UNKNOWN;
		hi = unwind_main_stack_top();
		if (__libc_stack_end && hi > bytes) {
			t->stack_lo = hi - (uintptr_t)bytes;
			t->stack_hi = hi;
		}
		return;
	}
	hi = (uintptr_t)pthread_self();
	if (sp >= hi || hi - sp > UNWIND_THREAD_STACK_MAX_BYTES)
		return;
	want = sp_page > UNWIND_STACK_MARGIN_BYTES ? sp_page - UNWIND_STACK_MARGIN_BYTES : 0;
	if (hi - want > UNWIND_THREAD_STACK_MAX_BYTES)
		want = sp_page;
	lo = unwind_mapped_floor(want, sp_page, hi);
	if (!lo) {
		if (errno != ENOMEM)
			t->stack_lo = t->stack_hi = UNWIND_STACK_UNKNOWN;
		return;
	}
	t->stack_lo = lo;
	t->stack_hi = hi;
}

/* Learns the stack range at a thread's first capture on its own stack, and
 * again when a thread's stack pointer sp went below the range learnt (a
 * deeper stack).  A range that cannot be learnt again (the thread runs on a
 * signal stack or a coroutine's now) keeps the old one. */
static void unwind_stack_fits(struct preload_thread *t, uintptr_t sp)
{
	uintptr_t lo = t->stack_lo, hi = t->stack_hi;

	if (!hi) {
		unwind_stack_learn(t, sp);
	} else if (hi != UNWIND_STACK_UNKNOWN && sp < lo && hi != unwind_main_stack_top()) {
		unwind_stack_learn(t, sp);
		if (t->stack_hi == UNWIND_STACK_UNKNOWN || !t->stack_hi) {
			t->stack_lo = lo;
			t->stack_hi = hi;
		}
	}
}

int unwind_on_own_stack(struct preload_thread *t)
{
	uintptr_t sp = (uintptr_t)__builtin_frame_address(0);

	unwind_stack_fits(t, sp);
	return t->stack_hi != UNWIND_STACK_UNKNOWN && sp > t->stack_lo && sp <= t->stack_hi;
}

int unwind_stack_room(const struct preload_thread *t, uintptr_t sp, size_t bytes)
{
	return t->stack_hi != UNWIND_STACK_UNKNOWN && t->stack_hi && sp <= t->stack_hi &&
	       sp > t->stack_lo && sp - t->stack_lo > bytes + UNWIND_PAGE_BYTES;
}

/* Maps t's memo once the thread has made THREAD_CACHES_AFTER_CAPTURES
 * captures; until then (or when it cannot be mapped) walks go without. */
static void unwind_memo_want(struct preload_thread *t)
{
	if (!t->unwind_memo && t->captures >= THREAD_CACHES_AFTER_CAPTURES)
		t->unwind_memo = unwind_fast_memo_map(t->frames_cap);
}

/* The own unwinder into t->frames (stopping at a frame shared with tail,
 * when given); -1 when it gave up. */
static int unwind_own(struct preload_thread *t, int mode, struct unwind_fast_tail *tail)
{
	int n;

	unwind_stack_fits(t, (uintptr_t)__builtin_frame_address(0));
	unwind_memo_want(t);
	t->frames_from_caller = 0;
	n = unwind_fast_walk(t, t->frames, t->frame_cfas, t->frame_bps, t->frame_bp_srcs,
			     t->frames_cap, t->stack_lo, t->stack_hi, mode, unwind_self_start,
			     unwind_self_end, tail);
	return n;
}

/*
 * The CFI walk from the allocator's caller, skipping the shim's own 5-7
 * frames; -1 when it cannot (a frame needs the caller's rbp, which only the
 * walk from the shim knows).  Not counted as a fallback.  It stops at the
 * first frame past max_frames: that frame only says the stack is truncated,
 * and so what the walk finds depends on no slot further up, which lets the
 * call-site cache hold truncated stacks too (stack_sites.h).
 */
static int unwind_own_caller(struct preload_thread *t, void *caller_ip, void *caller_cfa,
			     struct unwind_fast_tail *tail)
{
	uint32_t cap = preload_proc.cfg.max_frames + 1;

	unwind_stack_fits(t, (uintptr_t)__builtin_frame_address(0));
	unwind_memo_want(t);
	t->frames_from_caller = 1;
	return unwind_fast_walk_caller(t, t->frames, t->frame_cfas, t->frame_bps,
				       t->frame_bp_srcs, cap < t->frames_cap ? cap : t->frames_cap,
				       t->stack_lo, t->stack_hi, (uintptr_t)caller_ip,
				       (uintptr_t)caller_cfa, tail);
}

/*
 * The own CFI walk of a stack that is not the thread's own (a coroutine's,
 * a signal stack), from this frame: reads only pages it found readable
 * (unwind_fast_walk_foreign), and gives up (-1, then libunwind walks) at a
 * frame it cannot follow, a signal frame among them.  The previous stack is
 * not offered and this one is not kept for the next capture: its frames may
 * lie in memory the program frees.
 */
static int unwind_own_foreign(struct preload_thread *t)
{
	if (unwind_mode != UNWIND_MODE_CFI && unwind_mode != UNWIND_MODE_CHECK)
		return -1;
	unwind_memo_want(t);
	t->frames_from_caller = 0;
	return unwind_fast_walk_foreign(t, t->frames, t->frame_cfas, t->frame_bps,
					t->frame_bp_srcs, t->frames_cap);
}

/* The kernel's signal return trampoline on x86_64 (the C library's
 * __restore_rt): mov $15, %rax (rt_sigreturn); syscall. */
static const unsigned char unwind_sigreturn_code[9] = { 0x48, 0xc7, 0xc0, 0x0f, 0x00,
							0x00, 0x00, 0x0f, 0x05 };
#define UNWIND_SIGNAL_NEST_MAX 8

/* Whether [from, from + len) is surely mapped without asking the kernel:
 * in an executable segment of a module, or on the thread's own stack above
 * this frame (a signal frame the capture runs below). */
static int unwind_known_mapped(const struct preload_thread *t, uintptr_t from, size_t len)
{
	uintptr_t here = (uintptr_t)__builtin_frame_address(0);

	if (!len || from + len < from)
		return 0;
	if (modules_contains(from) && modules_contains(from + len - 1))
		return 1;
	return !t->capture_off_stack && t->stack_hi != UNWIND_STACK_UNKNOWN && here > t->stack_lo &&
	       from > here && from + len <= t->stack_hi;
}

/* Copies len bytes at the program's address from into to, without a
 * fault: 0, or -1 when they are not all readable.  Under a filter, which
 * may kill process_vm_readv, only memory known mapped is read. */
static int unwind_read_safely(const struct preload_thread *t, void *to, uintptr_t from,
			      size_t len)
{
	struct iovec local = { to, len }, remote = { (void *)from, len };

	if (seccomp_watch_filtered()) {
		if (!unwind_known_mapped(t, from, len))
			return -1;
		memcpy(to, (const void *)from, len);
		return 0;
	}
	return syscall(SYS_process_vm_readv, getpid(), &local, 1, &remote, 1, 0) == (long)len
		       ? 0
		       : -1;
}

/*
 * After a CFI walk into t->frames gave up: when it gave up at a signal
 * frame (its return address is the signal return trampoline, whose CFI the
 * own unwinder does not read), goes on from the registers the kernel saved
 * in the ucontext right above the handler's frame, as libunwind does, as
 * many times as signals nest.  Returns the frame count, or -1 when the walk
 * did not stop at a signal frame or cannot go on (libunwind's part then).
 */
static __attribute__((noinline)) int unwind_through_signals(struct preload_thread *t)
{
	uint32_t k = 0;

	for (int nest = 0; nest < UNWIND_SIGNAL_NEST_MAX; nest++) {
		uintptr_t fail_ip = t->unwind_fail_ip, ip, sp;
		unsigned char code[sizeof(unwind_sigreturn_code)];
		greg_t regs[NGREG];
		int n;

		while (k < t->frames_cap &&
		       (k ? (uintptr_t)t->frames[k] - 1 : (uintptr_t)t->frames[k]) != fail_ip)
			k++;
		if (!fail_ip || k + 1 >= t->frames_cap)
			return -1;
		ip = (uintptr_t)t->frames[k];
		sp = t->frame_cfas[k];
		if (unwind_read_safely(t, code, ip, sizeof(code)) < 0 ||
		    memcmp(code, unwind_sigreturn_code, sizeof(code)) != 0 ||
		    unwind_read_safely(t, regs, sp + offsetof(ucontext_t, uc_mcontext.gregs),
				       sizeof(regs)) < 0)
			return -1;
		k++;
		n = unwind_fast_walk_context(t, t->frames + k, t->frame_cfas + k, t->frame_bps + k,
					     t->frame_bp_srcs + k, t->frames_cap - k, t->stack_lo,
					     t->stack_hi, (uintptr_t)regs[REG_RIP],
					     (uintptr_t)regs[REG_RSP], (uintptr_t)regs[REG_RBP]);
		if (n >= 0)
			return (int)(k + (uint32_t)n);
	}
	return -1;
}

static uintptr_t unwind_through_signals_here(void *arg)
{
	return (uintptr_t)(intptr_t)unwind_through_signals(arg);
}

/* unwind_through_signals, on the recorder's stack when the capture is off
 * the thread's own (a coroutine's or a signal stack may be short). */
static int unwind_through_signals_any(struct preload_thread *t)
{
	if (!t->capture_off_stack)
		return unwind_through_signals(t);
	return (int)(intptr_t)rec_stack_call(t, unwind_through_signals_here, t);
}

/* Index of the first frame past the profiler's own (and libunwind's). */
static uint32_t unwind_skip_profiler(void **frames, uint32_t n);

/* Index of the first frame of t->frames to keep (the allocator's caller). */
static uint32_t unwind_first_kept(const struct preload_thread *t, uint32_t n)
{
	return t->frames_from_caller ? 0 : unwind_skip_profiler(t->frames, n);
}

static uint32_t unwind_skip_profiler(void **frames, uint32_t n)
{
	uint32_t i = 0;

	while (i < n && i < THREAD_SHIM_FRAMES_MAX && !unwind_in_shim(frames[i]))
		i++;
	if (i == n || i == THREAD_SHIM_FRAMES_MAX)
		return n; /* no shim frame seen: do not trust this capture */
	while (i < n && unwind_in_shim(frames[i]))
		i++;
	return i;
}

/* No user-space code lies at or above this address: x86_64's user half ends
 * below 2^47, or 2^56 with 5-level paging (a frame there was text read as
 * an address, "Y_PATH=/" in busybox). */
#if defined(__x86_64__)
#define UNWIND_USER_END ((uintptr_t)1 << 56)
#else
#define UNWIND_USER_END UINTPTR_MAX
#endif

/*
 * How many of the count frames from t->frames[first] come before one that
 * lies on the thread's own stack, in the main stack's argument strings
 * (unwind_args_lo) or above user space: a return address there is no code (a
 * frame-pointer guess through a frame without CFI, as in busybox, read one
 * out of data that rbp pointed at), so the stack ends, truncated, before
 * it.  JIT code lies in anonymous executable mappings, never on the stack.
 */
static uint32_t unwind_before_no_code(const struct preload_thread *t, uint32_t first,
				       uint32_t count)
{
	uintptr_t lo = t->stack_lo, span = t->stack_hi - t->stack_lo;
	uintptr_t args_span = unwind_args_hi - unwind_args_lo;

	for (uint32_t i = 1; i < count; i++) {
		uintptr_t ip = (uintptr_t)t->frames[first + i];

		if (ip - lo < span || ip - unwind_args_lo < args_span || ip >= UNWIND_USER_END)
			return i;
	}
	return count;
}

/*
 * Which of the n frames in t->frames are kept: stores the first index and
 * the truncation flag, returns the count (0: none, the caller then keeps
 * only the allocator's caller).
 */
static uint32_t unwind_kept(const struct preload_thread *t, uint32_t n, uint32_t *first,
			    int *truncated)
{
	uint32_t max_frames = preload_proc.cfg.max_frames, count;

	*truncated = 0;
	*first = unwind_first_kept(t, n);
	if (*first >= n)
		return 0;
	count = n - *first;
	if (count > max_frames || n == t->frames_cap) {
		*truncated = 1;
		if (count > max_frames)
			count = max_frames;
	}
	n = unwind_before_no_code(t, *first, count);
	if (n < count) {
		*truncated = 1;
		count = n;
	}
	return count;
}

/* Copies the kept frames of t->frames into t->ips, outermost first. */
static uint32_t unwind_store(struct preload_thread *t, uint32_t n, void *caller_ip,
			     int *truncated)
{
	uint32_t first, count = unwind_kept(t, n, &first, truncated);

	if (!count) {
		t->ips[0] = (uint64_t)(uintptr_t)caller_ip;
		return 1;
	}
	for (uint32_t i = 0; i < count; i++)
		t->ips[i] = (uint64_t)(uintptr_t)t->frames[first + count - 1 - i];
	return count;
}

/*
 * unwind_store for a CFI walk of n frames: also keeps, in t->cache_cfas,
 * where each kept frame's return address lay, so that the next capture can
 * reuse the frames it shares (cache_cfas_ok; not for truncated stacks), and
 * for a truncated walk from the caller the first frame past the kept ones
 * (t->beyond_ip, t->beyond_cfa), which the call-site cache checks too.
 */
static uint32_t unwind_store_walk(struct preload_thread *t, uint32_t n, int32_t rbp_frame,
				  void *caller_ip, int *truncated)
{
	uint32_t first, count = unwind_kept(t, n, &first, truncated);

	t->beyond_ip = 0;
	t->beyond_cfa = 0;
	if (!count) {
		t->ips[0] = (uint64_t)(uintptr_t)caller_ip;
		t->cache_cfas_ok = 0;
		return 1;
	}
	for (uint32_t i = 0; i < count; i++) {
		uint32_t k = first + count - 1 - i;

		t->ips[i] = (uint64_t)(uintptr_t)t->frames[k];
		t->cache_cfas[i] = t->frame_cfas[k];
		t->cache_bps[i] = t->frame_bps[k];
		t->cache_bp_srcs[i] = t->frame_bp_srcs[k];
	}
	t->cache_cfas_ok = !*truncated;
	if (*truncated && t->frames_from_caller && first + count < n) {
		t->beyond_ip = (uint64_t)(uintptr_t)t->frames[first + count];
		t->beyond_cfa = t->frame_cfas[first + count];
	}
	/* (an rbp-based frame past the kept ones: every kept one may depend
	 * on rbp, as far as the call-site cache knows) */
	if (rbp_frame >= (int32_t)(first + count))
		t->cache_rsp_only = 0;
	else if (rbp_frame >= (int32_t)first)
		t->cache_rsp_only = first + count - 1 - (uint32_t)rbp_frame;
	else
		t->cache_rsp_only = count;
	return count;
}

/*
 * Offers t's previous stack (t->cache_*) to the walk when its frames can be
 * trusted: it was a complete CFI capture (cache_cfas_ok: not truncated, no
 * libunwind) interned under the current module epoch with no dlclose since.
 */
static void unwind_tail_offer(struct preload_thread *t, struct unwind_fast_tail *tail)
{
	uint32_t count = 0;

	if (t->cache_cfas_ok && !atomic_load_explicit(&modules_dirty, memory_order_acquire) &&
	    t->cache_root_key == 2 * modules_epoch())
		count = t->cache_depth;
	unwind_fast_tail_init(tail, t->cache_ips, t->cache_cfas, t->cache_bps, t->cache_bp_srcs,
			      count, t->cache_rsp_only);
}

/*
 * The shortcut of a repeated call stack: when the allocator's caller
 * (return address caller_ip in the slot below caller_cfa, the entry point's
 * CFA) is a frame of the previous stack, nothing needs walking at all.
 * Returns 1 with tail->hit set when so.  Measured on a malloc+free loop at
 * depth 17 with the site cache (preload/stack_sites.h) disabled: 60 ns per
 * pair with this shortcut, 95-150 ns without it (the walk through the
 * shim's own frames, with the tail offered).
 */
static int unwind_tail_quick(const struct preload_thread *t, struct unwind_fast_tail *tail,
			     void *caller_ip, void *caller_cfa)
{
	uintptr_t cfa = (uintptr_t)caller_cfa;

	if (!tail->count || cfa <= t->stack_lo || cfa > t->stack_hi ||
	    ((const uintptr_t *)cfa)[-1] != (uintptr_t)caller_ip || unwind_in_shim(caller_ip))
		return 0;
	/* (the caller's rbp is unknown here: rbp-based callers need the walk) */
	return unwind_fast_tail_meets(tail, cfa, (uintptr_t)caller_ip, 0, 0, t->stack_hi);
}

/*
 * A walk of n frames stopped at entry j = tail->hit of the previous stack:
 * the kept frames are the walked ones past the shim's, then cached entries
 * j down to 0.  The entries [0, j] stay in the cache (t->ips_known = j + 1),
 * only the new frames go to t->ips and their slots to t->cache_cfas.
 * Returns the count, or 0 when the stack must be truncated: the caller then
 * expands the cached entries into t->frames and stores as for a full walk.
 */
static uint32_t unwind_store_hit(struct preload_thread *t, uint32_t n,
				 const struct unwind_fast_tail *tail)
{
	uint32_t j = (uint32_t)tail->hit;
	uint32_t first = n ? unwind_first_kept(t, n) : 0;
	uint32_t fresh = n - first, count = j + 1 + fresh;

	if (count > preload_proc.cfg.max_frames || n + j + 1 >= t->frames_cap)
		return 0;
	/* The outermost rbp-based entry: still the cached one when it is
	 * among the shared entries [0, j], else the walk's, if any. */
	if (t->cache_rsp_only > j)
		t->cache_rsp_only = tail->rbp_frame >= (int32_t)first
					    ? j + 1 + (n - 1 - (uint32_t)tail->rbp_frame)
					    : count;
	/* Entry j now has a walked callee: how it gets its rbp from it.  (With
	 * nothing walked, entry j is the last one and its source is unused.) */
	if (n) {
		t->cache_bps[j] = tail->hit_bp;
		t->cache_bp_srcs[j] = tail->hit_bp_src | (t->cache_bp_srcs[j] & UNWIND_BP_CFA);
	}
	for (uint32_t i = 0; i < fresh; i++) {
		uintptr_t ip = (uintptr_t)t->frames[n - 1 - i];

		t->ips[j + 1 + i] = ip;
		t->cache_cfas[j + 1 + i] = t->frame_cfas[n - 1 - i];
		t->cache_bps[j + 1 + i] = t->frame_bps[n - 1 - i];
		t->cache_bp_srcs[j + 1 + i] = t->frame_bp_srcs[n - 1 - i];
		if (unwind_in_shim((void *)ip))
			t->cache_cfas_ok = 0; /* a kept shim frame would confuse the next hit */
	}
	t->ips_known = j + 1;
	return count;
}

/* Puts the cached entries tail->hit down to 0 after the n walked frames of
 * t->frames, as a full walk would have found them; returns the new count
 * and updates tail->rbp_frame for the entries put there. */
static uint32_t unwind_expand(struct preload_thread *t, uint32_t n, struct unwind_fast_tail *tail)
{
	uint32_t j = (uint32_t)tail->hit;

	if (t->cache_rsp_only <= j && n + j - t->cache_rsp_only < t->frames_cap)
		tail->rbp_frame = (int32_t)(n + j - t->cache_rsp_only);
	for (int32_t i = (int32_t)j; i >= 0 && n < t->frames_cap; i--) {
		t->frame_cfas[n] = t->cache_cfas[i];
		t->frame_bps[n] = (uint32_t)i == j ? tail->hit_bp : t->cache_bps[i];
		t->frame_bp_srcs[n] = (uint32_t)i == j ? tail->hit_bp_src |
							 (t->cache_bp_srcs[i] & UNWIND_BP_CFA)
						       : t->cache_bp_srcs[i];
		t->frames[n++] = (void *)(uintptr_t)t->cache_ips[i];
	}
	return n;
}

/* Appends v in decimal (hex when is_hex) to the text in buf. */
static void unwind_text_u64(char *buf, size_t cap, uint64_t v, int is_hex)
{
	char tmp[24];
	int i = (int)sizeof(tmp) - 1;
	unsigned base = is_hex ? 16 : 10;

	tmp[i] = '\0';
	do {
		tmp[--i] = "0123456789abcdef"[v % base];
		v /= base;
	} while (v && i > 2);
	if (is_hex) {
		tmp[--i] = 'x';
		tmp[--i] = '0';
	}
	preload_text_append(buf, cap, tmp + i);
}

/* Check mode: puts the counters (and the first mismatch, if new) into the
 * process header's diag_text, which the launcher prints at the end. */
static void unwind_check_note(uint32_t depth, uint64_t own_ip, uint64_t lib_ip,
			      uint64_t fail_ip, const Dl_info *fail_where)
{
	static char first_mismatch[160], first_fallback[160];
	char text[400] = "unwind check: ";

	preload_lock_take(&unwind_check_lock);
	if (depth != UINT32_MAX && !first_mismatch[0]) {
		preload_text_append(first_mismatch, sizeof(first_mismatch),
				    " (first at frame ");
		unwind_text_u64(first_mismatch, sizeof(first_mismatch), depth, 0);
		preload_text_append(first_mismatch, sizeof(first_mismatch), ": own ");
		unwind_text_u64(first_mismatch, sizeof(first_mismatch), own_ip, 1);
		preload_text_append(first_mismatch, sizeof(first_mismatch), ", libunwind ");
		unwind_text_u64(first_mismatch, sizeof(first_mismatch), lib_ip, 1);
		preload_text_append(first_mismatch, sizeof(first_mismatch), ")");
	}
	if (fail_ip && !first_fallback[0]) {
		preload_text_append(first_fallback, sizeof(first_fallback), " (first at ");
		unwind_text_u64(first_fallback, sizeof(first_fallback), fail_ip, 1);
		if (fail_where && fail_where->dli_fname) {
			const char *base = strrchr(fail_where->dli_fname, '/');

			preload_text_append(first_fallback, sizeof(first_fallback), " = ");
			preload_text_append(first_fallback, sizeof(first_fallback),
					    base ? base + 1 : fail_where->dli_fname);
			preload_text_append(first_fallback, sizeof(first_fallback), "+");
			unwind_text_u64(first_fallback, sizeof(first_fallback),
					fail_ip - (uintptr_t)fail_where->dli_fbase, 1);
		}
		preload_text_append(first_fallback, sizeof(first_fallback), ")");
	}
	unwind_text_u64(text, sizeof(text), atomic_load(&unwind_check_captures), 0);
	preload_text_append(text, sizeof(text), " captures, ");
	unwind_text_u64(text, sizeof(text), atomic_load(&unwind_check_mismatches), 0);
	preload_text_append(text, sizeof(text), " mismatches");
	preload_text_append(text, sizeof(text), first_mismatch);
	preload_text_append(text, sizeof(text), ", ");
	unwind_text_u64(text, sizeof(text), atomic_load(&unwind_fallbacks), 0);
	preload_text_append(text, sizeof(text), " fallbacks to libunwind");
	preload_text_append(text, sizeof(text), first_fallback);
	preload_text_append(text, sizeof(text), ", ");
	unwind_text_u64(text, sizeof(text), atomic_load(&unwind_check_cached), 0);
	preload_text_append(text, sizeof(text), " reused cached frames, ");
	unwind_text_u64(text, sizeof(text), atomic_load(&unwind_check_cache_mismatches), 0);
	preload_text_append(text, sizeof(text), " of them differing from a full walk, ");
	unwind_text_u64(text, sizeof(text), atomic_load(&unwind_check_site_hits), 0);
	preload_text_append(text, sizeof(text), " from the call-site cache");
	diag_note(TRACE_DIAG_INFO, text);
	preload_lock_give(&unwind_check_lock);
}

/*
 * Check mode: the own unwinder's result is in t->ips (count, truncated);
 * runs libunwind into t->frames and compares the kept frames.  Mismatch
 * depth UINT32_MAX: none.
 */
static void unwind_check(struct preload_thread *t, void *caller_ip, uint32_t count, int truncated)
{
	uint32_t first, lib_count, n = unwind_libunwind(t), depth = UINT32_MAX;
	int lib_truncated;
	uint64_t own_ip = 0, lib_ip = 0;

	lib_count = unwind_kept(t, n, &first, &lib_truncated);
	if (!lib_count) {
		lib_count = 1;
		first = 0;
		t->frames[0] = caller_ip;
		n = 1;
	}
	for (uint32_t i = 0; i < count || i < lib_count; i++) {
		own_ip = i < count ? t->ips[i] : 0;
		lib_ip = i < lib_count ? (uint64_t)(uintptr_t)t->frames[first + lib_count - 1 - i] : 0;
		if (own_ip != lib_ip) {
			depth = i;
			break;
		}
	}
	if (depth == UINT32_MAX && truncated != lib_truncated) {
		depth = count;
		own_ip = lib_ip = 0;
	}
	atomic_fetch_add(&unwind_check_captures, 1);
	if (depth != UINT32_MAX)
		atomic_fetch_add(&unwind_check_mismatches, 1);
	unwind_check_note(depth, own_ip, lib_ip, 0, NULL);
}

/*
 * Check mode: the capture in t->ips (count, truncated) reused cached
 * frames; walks the whole stack again without the cache and counts a
 * mismatch when the kept frames or the truncation differ.
 */
static void unwind_check_cache(struct preload_thread *t, void *caller_ip, uint32_t count,
			       int truncated)
{
	int n = unwind_own(t, UNWIND_FAST_CFI, NULL);
	uint32_t first, full_count;
	int full_truncated, differ;

	if (n < 0)
		return;
	full_count = unwind_kept(t, (uint32_t)n, &first, &full_truncated);
	if (!full_count) {
		full_count = 1;
		first = 0;
		t->frames[0] = caller_ip;
	}
	differ = full_count != count || full_truncated != truncated;
	for (uint32_t i = 0; !differ && i < count; i++)
		differ = t->ips[i] != (uint64_t)(uintptr_t)t->frames[first + count - 1 - i];
	unwind_check_count_reuse(differ, 0);
}

void unwind_check_count_reuse(int differ, int site_hit)
{
	atomic_fetch_add(&unwind_check_cached, 1);
	if (site_hit)
		atomic_fetch_add(&unwind_check_site_hits, 1);
	if (differ) {
		atomic_fetch_add(&unwind_check_cache_mismatches, 1);
		unwind_check_note(UINT32_MAX, 0, 0, 0, NULL);
	}
}

/* The CFI capture, reusing the frames it shares with the previous stack;
 * -1 when the own unwinder gave up.  (Out of line: its frame is not on the
 * path of a capture off the thread's own stack, which may be short.) */
static __attribute__((noinline)) int unwind_capture_cfi(struct preload_thread *t, void *caller_ip, void *caller_cfa,
			      int *truncated, int *reused)
{
	struct unwind_fast_tail tail;
	uint32_t count;
	int n = 0;

	*reused = 0;
	unwind_tail_offer(t, &tail);
	if (!unwind_tail_quick(t, &tail, caller_ip, caller_cfa)) {
		n = unwind_own_caller(t, caller_ip, caller_cfa, &tail);
		if (n < 0) {
			unwind_tail_offer(t, &tail); /* afresh: the attempt moved it */
			n = unwind_own(t, UNWIND_FAST_CFI, &tail);
		}
		if (n < 0) {
			t->cache_cfas_ok = 0;
			return -1;
		}
	}
	if (tail.hit < 0)
		return (int)unwind_store_walk(t, (uint32_t)n, tail.rbp_frame, caller_ip, truncated);
	count = unwind_store_hit(t, (uint32_t)n, &tail);
	if (!count) {
		uint32_t expanded = unwind_expand(t, (uint32_t)n, &tail);

		return (int)unwind_store_walk(t, expanded, tail.rbp_frame, caller_ip, truncated);
	}
	*truncated = 0;
	*reused = 1;
	return (int)count;
}

/* Check mode: counts a capture the own unwinder gave up on, and where. */
static __attribute__((noinline)) void unwind_check_fallback(struct preload_thread *t)
{
	uintptr_t fail_ip = t->unwind_fail_ip;
	Dl_info where = { 0 };

	unwind_guard_enter(t);
	if (!fail_ip || !dladdr((void *)fail_ip, &where))
		where.dli_fname = NULL;
	unwind_guard_leave(t);
	atomic_fetch_add(&unwind_check_captures, 1);
	unwind_check_note(UINT32_MAX, 0, 0, fail_ip, &where);
}

uint32_t unwind_capture(struct preload_thread *t, void *caller_ip, void *caller_cfa,
			int *truncated)
{
	uint32_t count;
	int n = -1, reused = 0, filtered = seccomp_watch_filtered(), mode = unwind_mode;

#if defined(__x86_64__)
	/* under a filter libunwind is not used: its mode walks as the default */
	if (filtered && mode == UNWIND_MODE_LIBUNWIND)
		mode = UNWIND_MODE_CFI;
#endif
	t->ips_known = 0;
	t->beyond_ip = 0;
	t->beyond_cfa = 0;
	if (t->capture_off_stack) {
		n = unwind_own_foreign(t);
		if (n >= 0) {
			count = unwind_store_walk(t, (uint32_t)n, -1, caller_ip, truncated);
			t->cache_cfas_ok = 0;
			return count;
		}
		t->cache_cfas_ok = 0;
	} else if (mode == UNWIND_MODE_CFI || mode == UNWIND_MODE_CHECK) {
		n = unwind_capture_cfi(t, caller_ip, caller_cfa, truncated, &reused);
		if (n >= 0 && mode == UNWIND_MODE_CHECK && !filtered) {
			stack_table_ips_fill(t);
			if (reused)
				unwind_check_cache(t, caller_ip, (uint32_t)n, *truncated);
			unwind_check(t, caller_ip, (uint32_t)n, *truncated);
		}
		if (n >= 0) {
			if (__builtin_expect(atomic_load_explicit(&unwind_lib_wanted,
								  memory_order_relaxed), 0))
				unwind_lib_try(t, (uint32_t)n, *truncated);
			return (uint32_t)n;
		}
	} else if (mode == UNWIND_MODE_FP) {
		t->cache_cfas_ok = 0;
		n = unwind_own(t, UNWIND_FAST_FP, NULL);
	}
	if (n < 0 && mode != UNWIND_MODE_FP && mode != UNWIND_MODE_LIBUNWIND &&
	    (n = unwind_through_signals_any(t)) >= 0) {
		t->cache_cfas_ok = 0;
		count = unwind_store(t, (uint32_t)n, caller_ip, truncated);
		if (mode == UNWIND_MODE_CHECK && !filtered)
			unwind_check(t, caller_ip, count, *truncated);
		return count;
	}
	if (n < 0)
		atomic_fetch_add_explicit(&unwind_fallbacks, 1, memory_order_relaxed);
	if (n < 0 && filtered)
		return unwind_cut_filtered(t, caller_ip, truncated);
	if (n < 0 && mode == UNWIND_MODE_CFI &&
	    atomic_load_explicit(&unwind_lib_state, memory_order_acquire) != 2)
		return unwind_cut(t, caller_ip, truncated);
	if (n < 0) {
		count = unwind_store(t, unwind_libunwind(t), caller_ip, truncated);
		if (mode == UNWIND_MODE_CHECK)
			unwind_check_fallback(t);
		return count;
	}
	return unwind_store(t, (uint32_t)n, caller_ip, truncated);
}

static void unwind_wait_out(struct preload_thread *t)
{
	while (atomic_load(&t->in_unwind))
		preload_yield();
}

void unwind_fork_prepare(void)
{
	atomic_store(&unwind_fork_pending, 1);
	thread_foreach(unwind_wait_out);
}

void unwind_fork_done(void)
{
	atomic_store(&unwind_fork_pending, 0);
}
