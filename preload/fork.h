/*
 * preload/fork.h - keeping recording correct across fork().
 */
#ifndef MPROF_PRELOAD_FORK_H
#define MPROF_PRELOAD_FORK_H

#include <stdint.h>

/*
 * Registers the pthread_atfork handlers and maps the mailbox in which fork
 * children leave their pid for the parent's FORK record.  Called once by
 * the initializer (and by each recorded fork child for its own mailbox).
 */
void preload_fork_init(void);

/* The pthread_atfork handlers, also run around a fork-like system call the
 * program makes through syscall() (preload/raw_fork.c): before the copy,
 * in the parent after it (also when it failed), in the child after it. */
void fork_handler_prepare(void);
void fork_handler_parent(void);
void fork_handler_child(void);

/* Writes a FORK record (trace/format.h) in the calling thread's ring: the
 * process made a child, whose pid as the launcher sees it is child_pid (0:
 * unknown, or a child that runs unrecorded).  Called by fork_handler_parent
 * and for the children made without the fork handlers
 * (preload/raw_fork.c), so that the trace counts every child. */
void fork_note_child(uint32_t child_pid);

/*
 * The calling process is a child the fork handlers did not see (made by
 * clone() or clone3() without CLONE_VM, which run no pthread_atfork
 * handler): its shared rings and process file are the parent's.  Out of a
 * fork() the handlers are running, it records nothing until they are done;
 * else it stops recording for good (its process file unmapped, the shim
 * inert).  Called by preload_thread_enter_slow when the fork token reads 0.
 */
void fork_unseen_child(void);

#endif
