/*
 * preload/modules.h - the module map: which executable segments are loaded
 * where, numbered by epoch, and written as EXT_MODULES records (or, when
 * smaller, EXT_MODULES_DELTA records of what changed since the map before)
 * so that recorded instruction pointers can be symbolized after the run.
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

struct module_range;

/* One scan of the loaded modules, built and owned by modules.c; shown here
 * only so that modules_epoch can be read inline. */
struct module_map {
	uint64_t epoch;
	uint64_t adds, subs;         /* loader counters at the scan */
	uint32_t count;              /* modules */
	uint32_t nranges;            /* executable segments, sorted */
	size_t body_bytes;           /* encoded modules (MODULES payload after count) */
	size_t map_bytes;
	struct module_range *ranges;
	uint8_t *body;
	uint32_t *ids;               /* count: each module's id in the trace, set
	                              * under the modules lock when written */
	uint64_t next_id;            /* the id after the map's (mprof-trace(5)) */
};

/* The current map (NULL before modules_init); only modules.c stores it. */
extern _Atomic(struct module_map *) modules_current;

/* The epoch of the current map (0 before modules_init).  Inline: the
 * allocator's shortest path reads it on every call (as a call it was 15
 * instructions of every allocation, python3), and it is read from the map
 * itself, so that a stack interned under it had its frames checked against
 * that same map (modules_contains). */
static inline uint64_t modules_epoch(void)
{
	struct module_map *m = atomic_load_explicit(&modules_current, memory_order_acquire);

	return m ? m->epoch : 0;
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
