/*
 * preload/modules.h - the module map: which executable segments are loaded
 * where, numbered by epoch, and written as EXT_MODULES records (or, when
 * smaller, EXT_MODULES_DELTA records of what changed since the map before)
 * so that recorded instruction pointers can be symbolized after the run.
 * Readers see it through preload/module_view.h.
 */
#ifndef MPROF_PRELOAD_MODULES_H
#define MPROF_PRELOAD_MODULES_H

#include <stdatomic.h>
#include <stdint.h>

#include "preload/module_view.h"
#include "preload/thread.h"

extern _Atomic int modules_dirty;

/* Scans the loaded modules and makes that map epoch 1 (no record yet).
 * Returns 0, or -1 when out of memory. */
int modules_init(void);

/* The epoch of the current map (0 before modules_init).  Inline: the
 * allocator's shortest path reads it on every call (as a call it was 15
 * instructions of every allocation, python3). */
static inline uint64_t modules_epoch(void)
{
	return module_view_epoch();
}

/* Whether ip lies in an executable segment of the current map.  Lock-free;
 * a caller that interns under an epoch reads modules_epoch() after it, so a
 * stack is kept only under the epoch of the map its frames were checked
 * against. */
int modules_contains(uint64_t ip);

/*
 * Rescans the modules (when the loader's load/unload counters moved) and,
 * if the set changed, publishes the next epoch after writing its MODULES
 * record into the meta stream (preload/meta.h).  Returns 1 when the current
 * epoch differs from the one in force at the call, 0 when not, -1 when out
 * of memory.
 */
int modules_refresh(void);

struct preload_thread;

/* modules_refresh, on t's recorder stack (preload/rec_stack.h) when t's
 * capture is off its own stack: a module scan resolves paths in a PATH_MAX
 * buffer on the stack, more than a coroutine's or a signal stack may have
 * left. */
int modules_refresh_moved(struct preload_thread *t);

/* Writes the MODULES record of the current map into the meta stream (a
 * whole map: the first of a process file); 0 or -1. */
int modules_write_current(void);

/* dlclose happened: the next capture rescans before it interns. */
static inline void modules_mark_dirty(void)
{
	atomic_store_explicit(&modules_dirty, 1, memory_order_release);
}

/* Fork support: the map is not replaced while fork() copies the process. */
void modules_fork_prepare(void);
void modules_fork_parent(void);
void modules_fork_child(void);

#endif
