/*
 * preload/meta.h - the process's metadata stream: slot SESSION_META_SLOT of
 * the process file, which holds the STACK, MODULES, PROCESS and DIAG records
 * of every thread, so that a reader that needs only those (the symbolizer)
 * can skip the event streams without inflating them.
 */
#ifndef MPROF_PRELOAD_META_H
#define MPROF_PRELOAD_META_H

#include "preload/thread.h"

/*
 * Claims slot SESSION_META_SLOT of the current process file for the meta
 * stream and writes its THREAD (tid 0) and TIME records.  Call once per
 * process file, right after it is created and before any thread claims a
 * slot.  Returns 0, or -1 when the slot is taken or recording stopped.
 */
int meta_start(void);

/*
 * Takes the meta lock and returns the meta stream's writer, to be written
 * with ring_reserve / ring_commit like a thread's ring (a full ring blocks
 * the caller, holding the lock, until the collector reads).  Returns NULL,
 * without the lock, when there is no meta stream.  Never hold it across a
 * call that may take another lock of the shim or the loader's lock.
 */
struct preload_thread *meta_begin(void);

/* Releases the lock meta_begin took (m: what it returned). */
void meta_end(struct preload_thread *m);

/* Fork child: forgets the parent's meta stream and resets the lock (the
 * thread that may have held it does not exist here). */
void meta_fork_child(void);

#endif
