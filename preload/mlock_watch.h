/*
 * preload/mlock_watch.h - a program that locks all its memory
 * (mlockall(MCL_CURRENT)) locks the recorder's rings in use, not the
 * rings of its free thread slots (preload/mlock_watch.c).
 */
#ifndef MPROF_PRELOAD_MLOCK_WATCH_H
#define MPROF_PRELOAD_MLOCK_WATCH_H

/* Looks the next definition of mlockall up; called by the initializing
 * thread, before a vfork child could need it. */
void mlock_watch_resolve(void);

/* Before syscall(SYS_mlockall, flags) (preload/syscall_wrap.c): as the
 * mlockall wrapper does before its call.  Keeps errno. */
void mlock_watch_before(int flags);

#endif
