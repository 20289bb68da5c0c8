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

/* Looks up the C library's pthread_setcanceltype at the recorder's start
 * (dlsym may allocate). */
void cancel_watch_resolve(void);

#endif
