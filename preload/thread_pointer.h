/*
 * preload/thread_pointer.h - whether the calling thread runs on a thread
 * pointer of the C library's, and errno written as the C library's own
 * system call wrappers write it when it does not (preload/thread_pointer.c).
 *
 * A child that clone() or a clone system call starts with CLONE_SETTLS and
 * a block of the program's own (Chromium's sandbox chroots in one whose
 * block is zeroed, CLONE_VM | CLONE_VFORK), or a thread pointer of 0 or of
 * an unmapped page, has no thread control block: __errno_location() and
 * the recorder's initial-exec thread-local pointer lead to no memory of
 * its, while the C library's system call wrappers that succeed still work.
 * The wrappers such a child may call (syscall, the exec and wait families,
 * mmap, _exit) ask thread_pointer_is_libc() first and then only pass the
 * call on.  x86-64 only; elsewhere every thread pointer counts as the C
 * library's.  Never allocates.
 */
#ifndef MPROF_PRELOAD_THREAD_POINTER_H
#define MPROF_PRELOAD_THREAD_POINTER_H

#include <linux/sched.h>
#include <stdatomic.h>
#include <stdint.h>

/* errno's offset from the thread pointer, in bytes (the same in every
 * thread of the C library's); 0 until thread_pointer_start ran. */
extern intptr_t thread_pointer_errno_offset;

/* Non-zero when the kernel lets user code read the FS base (rdfsbase:
 * AT_HWCAP2's HWCAP2_FSGSBASE); set by thread_pointer_start. */
extern int thread_pointer_fsgsbase;

/* Thread control blocks of the C library's already seen readable, indexed
 * by thread_pointer_known_slot; 0: none. */
enum { THREAD_POINTER_KNOWN_SLOTS = 64 };
extern _Atomic uintptr_t thread_pointer_known[THREAD_POINTER_KNOWN_SLOTS];

/* Notes errno's offset from the thread pointer and whether rdfsbase may
 * run; called once by the initializing thread, before the process can
 * make a child. */
void thread_pointer_start(void);

/* The slot of thread_pointer_known that the block at tp would take. */
static inline unsigned thread_pointer_known_slot(uintptr_t tp)
{
	return (unsigned)((tp * 0x9e3779b97f4a7c15ull) >> 58);
}

/* The answer of thread_pointer_is_libc for tp, the FS base, when it is not
 * a known block: 0 for 0 and for an address the kernel will not read (under
 * a seccomp filter, which may kill for that system call, the two loads
 * only), else the two loads, tp then taken as known.  One system call. */
int thread_pointer_check(uintptr_t tp);

/* thread_pointer_is_libc without rdfsbase: the FS base read by
 * arch_prctl(ARCH_GET_FS), one system call (under a seccomp filter, which
 * may kill for it, the two loads only). */
int thread_pointer_is_libc_unread(void);

/* Non-zero while a child on a thread pointer of its own may run: counts
 * the clones with CLONE_SETTLS in progress (clone() or syscall(SYS_clone);
 * a SYS_clone3, whose flags are not read, counts as one), and stays so
 * after one whose child shares the memory and runs on (CLONE_VM without
 * CLONE_VFORK).  Before, every thread runs on one of the C library's (its
 * own thread creation is not seen here; nor is a clone by the program's
 * own system call instruction, whose child may still fault in the two
 * loads). */
extern _Atomic int thread_pointer_settls_seen;

/* Before a clone with flags: from then on the thread pointer is read
 * before it is loaded from (a child sees the count: it is raised before
 * the call).  Returns what thread_pointer_settls_end takes in the parent,
 * after the call: a CLONE_VFORK child has released the memory by then, and
 * a child without CLONE_VM has a copy of its own. */
static inline int thread_pointer_settls_begin(unsigned long flags)
{
	if (!(flags & CLONE_SETTLS))
		return 0;
	atomic_fetch_add_explicit(&thread_pointer_settls_seen, 1, memory_order_relaxed);
	return !(flags & CLONE_VM) || (flags & CLONE_VFORK);
}

/* After that clone, in the parent: begun is what thread_pointer_settls_begin
 * returned. */
static inline void thread_pointer_settls_end(int begun)
{
	if (begun)
		atomic_fetch_sub_explicit(&thread_pointer_settls_seen, 1, memory_order_relaxed);
}

/* Whether the thread pointer points at a thread control block of the C
 * library's: glibc's tcbhead_t starts with its own address (tcb) and
 * holds it again as self, 16 bytes in.  While a child on a thread pointer
 * of its own may run, those loads are made only when the FS base, read
 * without a memory access, is a block already seen readable; else
 * thread_pointer_check decides.  A block seen once and unmapped since (a
 * thread's stack given back) still counts as readable.  Before: one
 * load and a branch more than the two loads. */
static inline int thread_pointer_is_libc(void)
{
#if defined(__x86_64__)
	uintptr_t tp, tcb, self;

	if (__builtin_expect(!atomic_load_explicit(&thread_pointer_settls_seen,
						   memory_order_relaxed), 1)) {
		__asm__ volatile("mov %%fs:0, %0" : "=r"(tcb));
		__asm__ volatile("mov %%fs:16, %0" : "=r"(self));
		return tcb != 0 && tcb == self;
	}
	if (!thread_pointer_fsgsbase)
		return thread_pointer_is_libc_unread();
	__asm__ volatile("rdfsbase %0" : "=r"(tp));
	if (tp == 0 || atomic_load_explicit(&thread_pointer_known[thread_pointer_known_slot(tp)],
					    memory_order_relaxed) != tp)
		return thread_pointer_check(tp);
	__asm__ volatile("mov %%fs:0, %0" : "=r"(tcb));
	__asm__ volatile("mov %%fs:16, %0" : "=r"(self));
	return tcb == tp && self == tp;
#else
	return 1;
#endif
}

/* Sets errno to err where the C library's wrappers would in a thread whose
 * thread pointer is not its own (thread_pointer_is_libc() is 0): at its
 * offset from the thread pointer; nothing when that offset is unknown. */
static inline void thread_pointer_set_errno(int err)
{
#if defined(__x86_64__)
	intptr_t off = thread_pointer_errno_offset;

	if (off)
		__asm__ volatile("movl %0, %%fs:(%1)" : : "r"(err), "r"(off) : "memory");
#else
	(void)err;
#endif
}

#endif
