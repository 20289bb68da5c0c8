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

/* The epoch of the current map (0 before modules_init), for telling whether
 * something cached under an epoch is still current.  Just after a new map is
 * published it can still give the one before: a cache entry of that epoch is
 * then still used, which is what a reader a moment earlier would have done. */
static inline uint64_t modules_epoch(void)
{
	return atomic_load_explicit(&modules_current_epoch, memory_order_acquire);
}

/* The epoch of the current map, read from the map itself (0 before
 * modules_init): what a stack interned now must carry, since
 * modules_contains reads the same map.  (modules_epoch may lag the map by a
 * moment; a stack interned under the epoch before, with a frame in a module
 * only the new map has, would have that frame unsymbolized: a review helper
 * saw it when a delay was put between the two stores.) */
uint64_t modules_map_epoch(void);

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
