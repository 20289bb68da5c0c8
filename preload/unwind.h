/*
 * preload/unwind.h - capturing the call stack of an allocator call.
 */
#ifndef MPROF_PRELOAD_UNWIND_H
#define MPROF_PRELOAD_UNWIND_H

#include <stdint.h>

#include "preload/thread.h"

/*
 * Loads libunwind (MPROF_LIBUNWIND, dlopen'd RTLD_LOCAL so its _Unwind_*
 * symbols never capture the target's C++ exceptions), selects its
 * per-thread cache and finds the shim's own code range.  Returns 0, or -1
 * when libunwind is missing (stacks then have one frame).
 */
int unwind_init(void);

/*
 * Captures the stack of the allocator call whose return address is
 * caller_ip into t->ips, outermost frame first, the shim's own frames left
 * out; the last entry is the caller of the allocator.  At most
 * preload_proc.cfg.max_frames frames are kept; *truncated says whether more
 * were there.  Returns the number of frames (at least 1).
 */
uint32_t unwind_capture(struct preload_thread *t, void *caller_ip, int *truncated);

/* Fork support: unwind_fork_prepare waits until no thread is inside the
 * unwinder and keeps new ones out until unwind_fork_done.  The caller must
 * hold none of the shim's locks (an unwinding thread may wait for the
 * loader lock held by a thread that waits for one of them). */
void unwind_fork_prepare(void);
void unwind_fork_done(void);

#endif
