/*
 * preload/stack_room.h - how much stack the calling code has left when it
 * runs on an alternate signal stack (preload/stack_room.c).
 *
 * The wrappers of async-signal-safe functions (_exit, fork's handlers, the
 * exec and wait families) may be called from a signal handler on a small
 * alternate stack, whose kernel signal frame alone takes ~3 KiB with
 * AVX-512: where their recording does not fit, they only pass the call on,
 * so that it works wherever the C library's does.  Never allocates.
 */
#ifndef MPROF_PRELOAD_STACK_ROOM_H
#define MPROF_PRELOAD_STACK_ROOM_H

#include <stddef.h>

/* The bytes left below the caller on the alternate signal stack it runs
 * on; SIZE_MAX when it runs on another stack (whose bounds are not looked
 * up), and under a seccomp filter (preload/seccomp_watch.h), which may
 * kill the system call.  One sigaltstack system call; keeps errno.  Only on a thread
 * pointer of the C library's (preload/thread_pointer.h): built with a
 * stack protector, it reads the canary there. */
size_t stack_room_bytes(void);

#endif
