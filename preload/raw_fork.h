/*
 * preload/raw_fork.h - children made by a fork-like system call the program
 * makes through syscall() (preload/raw_fork.c).
 */
#ifndef MPROF_PRELOAD_RAW_FORK_H
#define MPROF_PRELOAD_RAW_FORK_H

/* Looks up the C library's clone() (preload/raw_fork.c wraps it); called
 * once by the initializing thread. */
void raw_fork_resolve(void);

/* Before system call nr with arguments a (syscall_wrap.c): when it makes a
 * copy of the process (SYS_fork, or SYS_clone or SYS_clone3 without
 * CLONE_VM, CLONE_SETTLS or a new stack) and the process has one thread,
 * runs the fork handlers' prepare step.  Returns what raw_fork_after needs:
 * RAW_FORK_NONE (no process of its own, or the recorder is not running),
 * RAW_FORK_HANDLED (prepared), RAW_FORK_COUNTED or RAW_FORK_COUNTED_STACK
 * (a child that will run unrecorded, made while the process had several
 * threads or under a seccomp filter, or on a stack of its own), or
 * RAW_FORK_CLONE3_UNREAD (clone3 under a seccomp filter: its arguments
 * are read after the call, and only when it made a process). */
enum raw_fork_mode {
	RAW_FORK_NONE,
	RAW_FORK_HANDLED,
	RAW_FORK_COUNTED,
	RAW_FORK_COUNTED_STACK,
	RAW_FORK_CLONE3_UNREAD,
};
enum raw_fork_mode raw_fork_before(long nr, const long a[6]);

/* After the call with arguments a, which returned rc, in the parent and in
 * the child: the fork handlers' parent or child step, or the parent's
 * count of a child that runs unrecorded.  Keeps errno. */
void raw_fork_after(enum raw_fork_mode mode, const long a[6], long rc);

#endif
