/*
 * preload/thread_pointer.c - errno's offset from the thread pointer, noted
 * at the recorder's start for the children that run on a thread pointer of
 * their own, and the check of a thread pointer not yet seen, made without
 * a load the kernel would fault (preload/thread_pointer.h).  Never
 * allocates; its system calls are made without the C library, whose errno
 * may lead nowhere here.
 */
#include <asm/prctl.h>
#include <errno.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <sys/uio.h>

#include "preload/seccomp_watch.h"
#include "preload/thread_pointer.h"

#ifndef HWCAP2_FSGSBASE
#define HWCAP2_FSGSBASE (1 << 1)
#endif

intptr_t thread_pointer_errno_offset;
int thread_pointer_fsgsbase;
_Atomic int thread_pointer_settls_seen;
_Atomic uintptr_t thread_pointer_known[THREAD_POINTER_KNOWN_SLOTS];

#if defined(__x86_64__)
/* The system call nr with up to five arguments: what the kernel returns
 * (-4095 to -1: an error number, negated); errno untouched. */
static long thread_pointer_syscall(long nr, long a0, long a1, long a2, long a3, long a4)
{
	register long r10 __asm__("r10") = a3;
	register long r8 __asm__("r8") = a4;
	register long r9 __asm__("r9") = 0;
	long rc;

	__asm__ volatile("syscall"
			 : "=a"(rc)
			 : "0"(nr), "D"(a0), "S"(a1), "d"(a2), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return rc;
}

/* The two loads: whether the block at the thread pointer holds its own
 * address first and as self; faults when the thread pointer leads nowhere. */
static int thread_pointer_loads(void)
{
	uintptr_t tcb, self;

	__asm__ volatile("mov %%fs:0, %0" : "=r"(tcb));
	__asm__ volatile("mov %%fs:16, %0" : "=r"(self));
	return tcb != 0 && tcb == self;
}

int thread_pointer_check(uintptr_t tp)
{
	uintptr_t head[3];
	struct iovec local = { head, sizeof(head) };
	struct iovec remote = { (void *)tp, sizeof(head) };
	long pid;

	if (tp == 0)
		return 0;
	if (seccomp_watch_filtered())
		return thread_pointer_loads();
	/* process_vm_readv: an address the kernel cannot read is EFAULT, not
	 * a fault here */
	pid = thread_pointer_syscall(SYS_getpid, 0, 0, 0, 0, 0);
	if (thread_pointer_syscall(SYS_process_vm_readv, pid, (long)&local, 1, (long)&remote, 1) !=
	    (long)sizeof(head))
		return 0;
	if (head[0] != tp || head[2] != tp)
		return 0;
	atomic_store_explicit(&thread_pointer_known[thread_pointer_known_slot(tp)], tp,
			      memory_order_relaxed);
	return thread_pointer_loads();
}

int thread_pointer_is_libc_unread(void)
{
	uintptr_t tp = 0;

	if (seccomp_watch_filtered())
		return thread_pointer_loads();
	if (thread_pointer_syscall(SYS_arch_prctl, ARCH_GET_FS, (long)&tp, 0, 0, 0) < 0)
		return thread_pointer_loads();
	if (tp != 0 && atomic_load_explicit(&thread_pointer_known[thread_pointer_known_slot(tp)],
					    memory_order_relaxed) == tp)
		return thread_pointer_loads();
	return thread_pointer_check(tp);
}
#else
int thread_pointer_check(uintptr_t tp)
{
	(void)tp;
	return 1;
}

int thread_pointer_is_libc_unread(void)
{
	return 1;
}
#endif

void thread_pointer_start(void)
{
#if defined(__x86_64__)
	uintptr_t tcb;

	thread_pointer_fsgsbase = (getauxval(AT_HWCAP2) & HWCAP2_FSGSBASE) != 0;
	if (!thread_pointer_is_libc())
		return;
	__asm__ volatile("mov %%fs:0, %0" : "=r"(tcb));
	thread_pointer_errno_offset = (intptr_t)((uintptr_t)&errno - tcb);
#endif
}
