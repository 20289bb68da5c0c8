/*
 * preload/exec_watch.h - the exec family and posix_spawn, wrapped to count
 * the programs started with an environment that drops the recorder
 * (preload/exec_watch.c; the process header's execs_unrecorded).
 */
#ifndef MPROF_PRELOAD_EXEC_WATCH_H
#define MPROF_PRELOAD_EXEC_WATCH_H

/* Looks up the C library's definitions behind the wrappers; called once
 * by the initializing thread, before a vfork child could need them. */
void exec_watch_resolve(void);

#endif
