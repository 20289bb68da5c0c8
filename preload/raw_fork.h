/*
 * preload/raw_fork.h - children made by a fork-like system call the program
 * makes through syscall() (preload/raw_fork.c).
 */
#ifndef MPROF_PRELOAD_RAW_FORK_H
#define MPROF_PRELOAD_RAW_FORK_H

/* Before system call nr with arguments a (syscall_wrap.c): when it makes a
 * process of its own (SYS_fork, or SYS_clone or SYS_clone3 without
 * CLONE_VM, CLONE_SETTLS or a new stack) and the process has one thread,
 * runs the fork handlers' prepare step.  Returns what raw_fork_after needs:
 * RAW_FORK_NONE (not such a call), RAW_FORK_HANDLED (prepared) or
 * RAW_FORK_COUNTED (a child that will run unrecorded). */
enum raw_fork_mode { RAW_FORK_NONE, RAW_FORK_HANDLED, RAW_FORK_COUNTED };
enum raw_fork_mode raw_fork_before(long nr, const long a[6]);

/* After the call, which returned rc, in the parent and in the child: the
 * fork handlers' parent or child step, or the parent's count of a child
 * that runs unrecorded.  Keeps errno. */
void raw_fork_after(enum raw_fork_mode mode, long rc);

#endif
