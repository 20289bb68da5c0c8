/*
 * preload/thread_id.h - the calling thread's kernel id, under a seccomp
 * filter without gettid (preload/thread_id.c).
 */
#ifndef MPROF_PRELOAD_THREAD_ID_H
#define MPROF_PRELOAD_THREAD_ID_H

#include <sys/types.h>

/* Looks up where the C library's thread descriptor keeps its thread's id
 * (no system call).  Called once by the initializing thread. */
void thread_id_start(void);

/* Checks that place against gettid on the calling thread, before a filter
 * that may kill gettid comes; only a place that passed is used. */
void thread_id_keep_before_filter(void);

/* The calling thread's id: gettid, or under a filter the C library's copy
 * (0 when it could not be checked). */
pid_t thread_id_own(void);

#endif
