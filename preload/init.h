/*
 * preload/init.h - starting the shim in a process image.
 */
#ifndef MPROF_PRELOAD_INIT_H
#define MPROF_PRELOAD_INIT_H

#include <unistd.h>

/*
 * Initialises the shim once: the first caller (the library constructor or
 * the first allocator call, whichever comes first) does the work; any other
 * caller returns at once, without waiting, and its call is forwarded
 * unrecorded until the phase is READY (a waiting thread could hold the
 * loader lock the initializer needs).
 */
void preload_init_ensure(void);

/* Kernel id of the calling thread. */
static inline pid_t preload_tid(void)
{
	return gettid();
}

#endif
