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

/* Nonzero while the map may be out of date: bit 0 is set when a dlclose
 * ends (and cleared by the rescan that follows, after it published its
 * epoch), the bits above count twice the dlcloses under way.  A capture that
 * finds it nonzero rescans before it interns and no cached stack is reused:
 * another thread may load a library where the closed one was before the
 * closing thread's dlclose returns. */
extern _Atomic int modules_dirty;

/* How many published maps removed a module (or more), counted before the
 * map is published.  Caches of what lies at an address (the unwind rules)
 * stay valid while only modules are added, and are renewed when it moves. */
extern _Atomic uint64_t modules_removals;

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

/* Whether the loader unloaded a module since the current map was scanned:
 * a dlclose that did not pass the shim's (glibc's own, of the iconv modules
 * it no longer uses), after which another library may lie where the
 * unloaded one was while the map still names the old one.  One
 * dl_iterate_phdr call that stops at the first module, some 10-20 ns. */
int modules_unload_unseen(void);

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

/* Bracket the real dlclose: from the first call until a rescan after the
 * second, every capture rescans before it interns. */
void modules_close_begin(void);
void modules_close_end(void);

/* Fork support: the map is not replaced while fork() copies the process. */
void modules_fork_prepare(void);
void modules_fork_parent(void);
void modules_fork_child(void);

#endif
