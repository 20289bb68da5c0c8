/*
 * preload/cancel_watch.h - whether the program has made a thread cancelable
 * asynchronously (preload/cancel_watch.c), which the recorder's locks ask
 * (preload/lock.h).
 */
#ifndef MPROF_PRELOAD_CANCEL_WATCH_H
#define MPROF_PRELOAD_CANCEL_WATCH_H

/* 1 once a thread of the process asked for PTHREAD_CANCEL_ASYNCHRONOUS
 * (never cleared, inherited by fork children), else 0. */
extern _Atomic int cancel_watch_async_seen;

/* The C library's pthread_setcanceltype (not the recorder's wrapper):
 * 0, or an error number (ENOSYS when it was not found). */
int cancel_watch_set_type(int type, int *oldtype);

/* Looks up the C library's pthread_setcanceltype at the recorder's start
 * (dlsym may allocate). */
void cancel_watch_resolve(void);

#endif
