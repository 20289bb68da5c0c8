/*
 * preload/fork.h - keeping recording correct across fork().
 */
#ifndef MPROF_PRELOAD_FORK_H
#define MPROF_PRELOAD_FORK_H

/*
 * Registers the pthread_atfork handlers and maps the mailbox in which fork
 * children leave their pid for the parent's FORK record.  Called once by
 * the initializer (and by each recorded fork child for its own mailbox).
 */
void preload_fork_init(void);

#endif
