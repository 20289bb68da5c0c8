/*
 * preload/unwind.c - call-stack capture with libunwind's unw_backtrace.
 *
 * Owns the libunwind handle, the shim's code range (frames inside it are the
 * profiler's, not the program's) and the fork guard around the unwinder.
 * libunwind is loaded at run time and never linked: its _Unwind_* exports
 * would otherwise capture the target's C++ exceptions.  Without it, stacks
 * are one frame (the caller of the allocator).  Must never call malloc; the
 * unwinder's own allocations (its dynamic TLS) go to the nested heap because
 * the caller is busy.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <sched.h>

#include "config.h"
#include "preload/lock.h"
#include "preload/unwind.h"

#define UNWIND_CACHE_PER_THREAD 2 /* libunwind's UNW_CACHE_PER_THREAD */

typedef int (*unwind_backtrace_fn)(void **buffer, int size);
typedef int (*unwind_set_caching_fn)(void *addr_space, int policy);

static unwind_backtrace_fn unwind_backtrace;
static uintptr_t unwind_self_start, unwind_self_end;

/* Set while a fork is in progress: threads stay out of the unwinder, so the
 * child never inherits a lock libunwind held in another thread. */
static _Atomic int unwind_fork_pending;

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

int unwind_init(void)
{
	void *lib, *addr_space;
	unwind_set_caching_fn set_caching;

	dl_iterate_phdr(unwind_self_scan, (void *)(uintptr_t)unwind_init);
	lib = dlopen(MPROF_LIBUNWIND, RTLD_LOCAL | RTLD_NOW);
	if (!lib)
		return -1;
	unwind_backtrace = (unwind_backtrace_fn)dlsym(lib, "unw_backtrace");
	set_caching = (unwind_set_caching_fn)dlsym(lib, "_ULx86_64_set_caching_policy");
	addr_space = dlsym(lib, "_ULx86_64_local_addr_space");
	if (set_caching && addr_space)
		set_caching(*(void **)addr_space, UNWIND_CACHE_PER_THREAD);
	return unwind_backtrace ? 0 : -1;
}

static int unwind_in_shim(void *ip)
{
	return (uintptr_t)ip - unwind_self_start < unwind_self_end - unwind_self_start;
}

/*
 * Runs unw_backtrace with t->in_unwind set.  The flag and the fork flag
 * form a Dekker pair (both sequentially consistent): either the fork sees
 * this thread inside and waits, or this thread sees the fork and waits.
 */
static int unwind_guarded(struct preload_thread *t)
{
	int n;

	for (;;) {
		atomic_store(&t->in_unwind, 1);
		if (!atomic_load(&unwind_fork_pending))
			break;
		atomic_store(&t->in_unwind, 0);
		while (atomic_load(&unwind_fork_pending))
			sched_yield();
	}
	n = unwind_backtrace(t->frames, (int)t->frames_cap);
	atomic_store_explicit(&t->in_unwind, 0, memory_order_release);
	return n;
}

/* Index of the first frame past the profiler's own (and libunwind's). */
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

uint32_t unwind_capture(struct preload_thread *t, void *caller_ip, int *truncated)
{
	uint32_t max_frames = preload_proc.cfg.max_frames;
	uint32_t n = 0, first, count;

	*truncated = 0;
	if (unwind_backtrace) {
		int got = unwind_guarded(t);

		n = got > 0 ? (uint32_t)got : 0;
	}
	first = unwind_skip_profiler(t->frames, n);
	if (first >= n) {
		t->ips[0] = (uint64_t)(uintptr_t)caller_ip;
		return 1;
	}
	count = n - first;
	if (count > max_frames || n == t->frames_cap) {
		*truncated = 1;
		if (count > max_frames)
			count = max_frames;
	}
	for (uint32_t i = 0; i < count; i++)
		t->ips[i] = (uint64_t)(uintptr_t)t->frames[first + count - 1 - i];
	return count;
}

static void unwind_wait_out(struct preload_thread *t)
{
	while (atomic_load(&t->in_unwind))
		sched_yield();
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
