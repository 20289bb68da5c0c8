/*
 * preload/thread_pointer.c - errno's offset from the thread pointer, noted
 * at the recorder's start for the children that run on a thread pointer of
 * their own (preload/thread_pointer.h).  Never allocates.
 */
#include <errno.h>

#include "preload/thread_pointer.h"

intptr_t thread_pointer_errno_offset;

void thread_pointer_start(void)
{
#if defined(__x86_64__)
	uintptr_t tcb;

	if (!thread_pointer_is_libc())
		return;
	__asm__ volatile("mov %%fs:0, %0" : "=r"(tcb));
	thread_pointer_errno_offset = (intptr_t)((uintptr_t)&errno - tcb);
#endif
}
