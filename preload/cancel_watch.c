/*
 * preload/cancel_watch.c - the exported pthread_setcanceltype, made here so
 * that the recorder knows when a thread of the program becomes cancelable
 * asynchronously: from then on the recorder's locks defer cancellation
 * while they are held (preload/lock.h), two atomic operations per lock that
 * only such programs pay.
 *
 * Owns cancel_watch_async_seen.  Arguments, return value and errno are the
 * C library's; never calls malloc (the next definition is looked up at the
 * recorder's start).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>

#include "preload/cancel_watch.h"
#include "preload/exported.h"
#include "preload/next_sym.h"

_Atomic int cancel_watch_async_seen;

enum { NEXT_SETCANCELTYPE, NEXT_COUNT };
static const char *const next_names[NEXT_COUNT] = { "pthread_setcanceltype" };
static void *volatile next_slots[NEXT_COUNT];

void cancel_watch_resolve(void)
{
	next_sym_resolve(next_slots, next_names, NEXT_COUNT);
}

int cancel_watch_set_type(int type, int *oldtype)
{
	int (*fn)(int, int *) =
		(int (*)(int, int *))next_sym(next_slots, next_names, NEXT_SETCANCELTYPE);

	return fn ? fn(type, oldtype) : ENOSYS;
}

/* Set before the C library's call: the thread's own lock sections after it
 * see it, and before it the thread cannot be cancelled asynchronously. */
PRELOAD_API int pthread_setcanceltype(int type, int *oldtype)
{
	if (type == PTHREAD_CANCEL_ASYNCHRONOUS)
		atomic_store(&cancel_watch_async_seen, 1);
	return cancel_watch_set_type(type, oldtype);
}
