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

/*
 * Called by the shim's malloc while real.foreign_forward_unseen is set: the
 * program's own malloc, which the shim warned it cannot record, forwards
 * to the next definition (dlsym(RTLD_NEXT) finds the shim's), so its
 * blocks are recorded after all.  Once the shim is READY, clears the flag
 * and says so (TRACE_DIAG_FOREIGN_FORWARDS), once.  Never allocates.
 */
void preload_init_foreign_forwards(void);

/* Kernel id of the calling thread. */
static inline pid_t preload_tid(void)
{
	return gettid();
}

#endif
