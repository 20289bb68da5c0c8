/*
 * preload/thread_pointer.h - whether the calling thread runs on a thread
 * pointer of the C library's, and errno written as the C library's own
 * system call wrappers write it when it does not (preload/thread_pointer.c).
 *
 * A child that clone() or a clone system call starts with CLONE_SETTLS and
 * a block of the program's own (Chromium's sandbox chroots in one whose
 * block is zeroed, CLONE_VM | CLONE_VFORK) has no thread control block:
 * __errno_location() and the recorder's initial-exec thread-local pointer
 * lead to no memory of its, while the C library's system call wrappers,
 * which write errno at a fixed offset from the thread pointer, still work.
 * The wrappers such a child may call (syscall, the exec and wait families,
 * mmap, _exit) ask thread_pointer_is_libc() first and then only pass the
 * call on.  x86-64 only; elsewhere every thread pointer counts as the C
 * library's.  Never allocates.
 */
#ifndef MPROF_PRELOAD_THREAD_POINTER_H
#define MPROF_PRELOAD_THREAD_POINTER_H

#include <stdint.h>

/* errno's offset from the thread pointer, in bytes (the same in every
 * thread of the C library's); 0 until thread_pointer_start ran. */
extern intptr_t thread_pointer_errno_offset;

/* Notes errno's offset from the thread pointer; called once by the
 * initializing thread, before the process can make a child. */
void thread_pointer_start(void);

/* Whether the thread pointer points at a thread control block of the C
 * library's: glibc's tcbhead_t starts with its own address (tcb) and
 * holds it again as self, 16 bytes in.  Two loads. */
static inline int thread_pointer_is_libc(void)
{
#if defined(__x86_64__)
	uintptr_t tcb, self;

	__asm__ volatile("mov %%fs:0, %0" : "=r"(tcb));
	__asm__ volatile("mov %%fs:16, %0" : "=r"(self));
	return tcb != 0 && tcb == self;
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
