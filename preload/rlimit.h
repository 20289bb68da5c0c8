/*
 * preload/rlimit.h - a program whose RLIMIT_AS is lowered gets the
 * recorder's spare address space back (preload/rlimit.c): the wrappers of
 * setrlimit, setrlimit64, prlimit, prlimit64, mmap, mmap64 and
 * pthread_create, and the
 * hooks that syscall() and a failed allocation call.
 */
#ifndef MPROF_PRELOAD_RLIMIT_H
#define MPROF_PRELOAD_RLIMIT_H


/* Looks the next definitions up; called by the initializing thread, before
 * a vfork child could need them. */
void rlimit_resolve(void);

/* After syscall(nr, args...) returned rc (preload/syscall_wrap.c): as the
 * setrlimit and prlimit wrappers do for SYS_setrlimit and SYS_prlimit64.
 * Keeps errno. */
void rlimit_after_syscall(long nr, const long args[6], long rc);

/*
 * After the C library's allocator (or mmap) failed: gives address space
 * back under a finite RLIMIT_AS the wrappers did not see set (another
 * process's prlimit, a system call instruction of the program's own).  1 when it
 * gave some back, so that one more try of the same call may succeed; 0
 * otherwise (then the failure stands).  Costs a getrlimit; keeps errno.
 * The caller holds none of the recorder's locks.
 */
int rlimit_retry_worth(void);

/*
 * In a fork child, before it makes a process file of its own, under a
 * finite RLIMIT_AS (read now; the parent may not have seen it lowered):
 * closes the reservation, shrinks the nested heap's region, sizes the
 * child's slots for the limit and unmaps the rings of the parent's file
 * (preload_proc.hdr, which the child only unmaps later; file_bytes is
 * lowered to what stays mapped), so that the child's file fits and the
 * child's own allocations do too.  Called by fork.c's child handler once
 * the locks are reset; notes nothing.
 */
void rlimit_fork_child(void);

#endif
