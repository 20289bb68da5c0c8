/*
 * preload/rec_stack.h - the recorder's own stack: a small per-thread stack
 * on which the parts of recording that need much stack run (libunwind's
 * walk, a CFI parse, a module scan), so that recording never needs more of
 * the program's stack than the entry point's few frames and the own
 * unwinder's walk.  A
 * coroutine's stack or a signal stack may have only 2-4 KiB left where
 * libunwind alone takes 4-6 KiB.
 */
#ifndef MPROF_PRELOAD_REC_STACK_H
#define MPROF_PRELOAD_REC_STACK_H

#include <stdint.h>

#include "preload/thread.h"

/* Size of the recorder's stack, without its guard page: libunwind's walk
 * took 4-6 KiB, the loader's dl_iterate_phdr and a CFI parse 1-2 KiB. */
#define REC_STACK_BYTES (48u << 10)

/* Work to run on the recorder's stack. */
typedef uintptr_t (*rec_stack_fn)(void *arg);

/*
 * Runs fn(arg) on t's recorder stack (mapped at the first call, kept when
 * the state is recycled) and returns what it returns.  Every signal but
 * those a fault raises (and the C library's two internal ones, which
 * pthread_sigmask never blocks) is blocked meanwhile: no handler of the
 * program's runs on the recorder's stack, and one using SA_ONSTACK cannot
 * start over on a signal stack whose frames lie below us.  The switch leaves a frame whose
 * CFI rule goes back to the program's stack (CFA = rbp + 16), so unwinders
 * walking from fn (libunwind, a debugger) continue into the program's
 * frames.  Calls fn directly when already on that stack, when the stack
 * cannot be mapped, or off x86_64.
 */
uintptr_t rec_stack_call(struct preload_thread *t, rec_stack_fn fn, void *arg);

/* Whether the calling thread (t) runs on its recorder stack now. */
static inline int rec_stack_active(const struct preload_thread *t)
{
	return t->rec_stack_active;
}

#endif
