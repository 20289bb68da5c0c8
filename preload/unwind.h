/*
 * preload/unwind.h - capturing the call stack of an allocator call: the
 * shim's own CFI unwinder (preload/unwind_fast.h) with libunwind as the
 * fallback, selected by MPROF_UNWIND.
 */
#ifndef MPROF_PRELOAD_UNWIND_H
#define MPROF_PRELOAD_UNWIND_H

#include <stdint.h>

#include "preload/thread.h"

/* The environment variable that selects the unwinder. */
#define UNWIND_ENV_MODE "MPROF_UNWIND"

/* What MPROF_UNWIND selected. */
enum unwind_mode {
	UNWIND_MODE_CFI = 0,       /* default ("dwarf"): own CFI unwinder, libunwind fallback */
	UNWIND_MODE_LIBUNWIND = 1, /* "libunwind": unw_backtrace only */
	UNWIND_MODE_CHECK = 2,     /* "check": both, mismatches counted (diag_text) */
	UNWIND_MODE_FP = 3,        /* "fp": frame-pointer chain past the shim */
};

/*
 * Reads MPROF_UNWIND, finds the shim's own code range and, unless the own
 * unwinder is selected (the default), loads libunwind (MPROF_LIBUNWIND,
 * dlopen'd RTLD_LOCAL so its _Unwind_* symbols never capture the target's
 * C++ exceptions; its per-thread cache is selected at its first walk).  In
 * the default mode libunwind is loaded only when a capture first needs it
 * (preload/unwind.c says where).  Returns 0, or -1 when no unwinder can be
 * used (stacks then have one frame): libunwind is missing and MPROF_UNWIND
 * asked for it (or for check), or the machine is not x86_64.
 */
int unwind_init(void);

/* Called by the pthread_create wrapper before the call: in the default
 * mode, loads libunwind before the process's first thread is made (with
 * one thread, no other can hold the loader's lock), so that a later
 * capture of any thread can fall back to it.  Does nothing after, nor with
 * a foreign malloc (preload/real.h), through which the loader would
 * allocate. */
void unwind_threads_coming(void);

/* Keeps what a capture would ask the kernel for (RLIMIT_STACK) before a
 * seccomp filter that may kill the asking comes (preload/seccomp_watch.h). */
void unwind_keep_before_filter(void);

/* Whether the module at load_bias (dl_phdr_info's dlpi_addr) is one the
 * recorder's load of libunwind added (libunwind, liblzma), not the
 * program's: for preload/mlock_watch.c, which leaves them unlocked. */
int unwind_lib_added_module(uintptr_t load_bias);

/* For a process whose allocations a Valgrind tool serves, after
 * unwind_init: libunwind is never loaded there, since the loader would
 * allocate through the tool's malloc, and the tool's report of the
 * program would count the recorder's blocks (12 allocations, 3220 bytes
 * still reachable under memcheck). */
void unwind_lib_forgo(void);

/* Whether ip lies in the shim's own code (known once unwind_init ran;
 * 0 before). */
int unwind_ip_in_shim(const void *ip);

/*
 * Captures the stack of the allocator call whose return address is
 * caller_ip into t->ips, outermost frame first, the shim's own frames left
 * out; the last entry is the caller of the allocator.  At most
 * preload_proc.cfg.max_frames frames are kept; *truncated says whether more
 * were there.  Returns the number of frames (at least 1).
 *
 * caller_cfa is the entry point's CFA (caller_ip lies at caller_cfa - 8;
 * NULL: unknown).  Frames shared with the thread's previous stack, checked
 * against the live stack, are not copied: t->ips[0, t->ips_known) are then
 * t->cache_ips[0, t->ips_known) (stack_table_intern knows; others call
 * stack_table_ips_fill).
 */
uint32_t unwind_capture(struct preload_thread *t, void *caller_ip, void *caller_cfa,
			int *truncated);

/* Whether MPROF_UNWIND=check is in force (every shortcut is then checked);
 * read on every allocation, hence inline. */
extern int unwind_check_mode;
static inline int unwind_checking(void)
{
	return unwind_check_mode;
}

/*
 * Whether the calling thread runs on its own stack (the range the own
 * unwinder walks), learning that range first when it is not known yet or
 * the stack grew below it.  0 on a coroutine's or a signal stack: the
 * capture then runs on the recorder's stack (preload/rec_stack.h), where
 * unwind_capture walks with libunwind.
 */
int unwind_on_own_stack(struct preload_thread *t);

/* Whether bytes of stack below sp (on the calling thread, t) lie inside its
 * own stack as last learnt, with a page to spare; 0 when that is not
 * known.  Learns nothing. */
int unwind_stack_room(const struct preload_thread *t, uintptr_t sp, size_t bytes);

/* Check mode: a capture reused cached frames (site_hit: the whole stack,
 * from the call-site cache, preload/stack_sites.h); differ says whether the
 * result differed from a full capture.  Counted in the check's diag line. */
void unwind_check_count_reuse(int differ, int site_hit);

/*
 * The fork guard around code that may take the loader's lock or a lock of
 * the unwinder (libunwind, a CFI cache miss): while a thread is inside,
 * fork() waits; while a fork is pending, the thread waits to enter.  Not
 * reentrant.
 */
void unwind_guard_enter(struct preload_thread *t);
void unwind_guard_leave(struct preload_thread *t);

/* Fork support: unwind_fork_prepare waits until no thread is inside the
 * unwinder and keeps new ones out until unwind_fork_done.  The caller must
 * hold none of the shim's locks (an unwinding thread may wait for the
 * loader lock held by a thread that waits for one of them). */
void unwind_fork_prepare(void);
void unwind_fork_done(void);

#endif
