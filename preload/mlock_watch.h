/*
 * preload/mlock_watch.h - a program that locks all its memory
 * (mlockall(MCL_CURRENT)) locks its own mappings, not the recorder's, and
 * is refused as it would be without the recorder (preload/mlock_watch.c).
 */
#ifndef MPROF_PRELOAD_MLOCK_WATCH_H
#define MPROF_PRELOAD_MLOCK_WATCH_H

/* Looks the next definition of mlockall up; called by the initializing
 * thread, before a vfork child could need it. */
void mlock_watch_resolve(void);

/*
 * For mlockall(flags) and syscall(SYS_mlockall, flags)
 * (preload/syscall_wrap.c): 1 when the call was made here, its result (0
 * or -1) in *rc and errno set as the kernel would have set it for the
 * program alone; 0 when the caller makes the kernel's call itself (flags
 * without MCL_CURRENT or that the kernel refuses, inside the recorder,
 * under a seccomp filter, /proc/self/maps unreadable), errno kept.
 */
int mlock_watch_call(int flags, int *rc);

#endif
