/*
 * preload/modules.h - the module map: which executable segments are loaded
 * where, numbered by epoch, and written as EXT_MODULES records so that
 * recorded instruction pointers can be symbolized after the run.
 */
#ifndef MPROF_PRELOAD_MODULES_H
#define MPROF_PRELOAD_MODULES_H

#include <stdatomic.h>
#include <stdint.h>

#include "preload/thread.h"

extern _Atomic int modules_dirty;

/* Scans the loaded modules and makes that map epoch 1 (no record yet).
 * Returns 0, or -1 when out of memory. */
int modules_init(void);

/* The epoch of the current map, published after the map itself (0 before
 * modules_init); read inline by the allocator's shortest path. */
extern _Atomic uint64_t modules_current_epoch;

/* The epoch of the current map (0 before modules_init). */
static inline uint64_t modules_epoch(void)
{
	return atomic_load_explicit(&modules_current_epoch, memory_order_acquire);
}

/* Whether ip lies in an executable segment of the current map.  Lock-free. */
int modules_contains(uint64_t ip);

/*
 * Rescans the modules (when the loader's load/unload counters moved) and,
 * if the set changed, publishes the next epoch after writing its MODULES
 * record into the meta stream (preload/meta.h).  Returns 1 when the current
 * epoch differs from the one in force at the call, 0 when not, -1 when out
 * of memory.
 */
int modules_refresh(void);

/* Writes the MODULES record of the current map into the meta stream; 0 or -1. */
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
