/*
 * preload/mlock_watch.c - keeps the rings of free thread slots out of a
 * program's mlockall(MCL_CURRENT).
 *
 * The kernel faults in and locks every accessible page of the process's
 * mappings, and the process file maps one ring per thread slot (4096 of
 * 768 KiB by default, preload/procfile.c), nearly all never written: an
 * mlockall(MCL_CURRENT | MCL_FUTURE) as a real-time program makes at its
 * start (cyclictest, jackd, chronyd -m) took 20 s instead of under a
 * millisecond and left 3 GiB of shared memory resident.  Before the call,
 * the rings of free slots are made inaccessible, which the kernel skips
 * (thread_rings_seal_free); a thread that claims one later makes it
 * accessible again, and with MCL_FUTURE its pages are locked as it writes
 * them.  The call itself is the C library's, with the program's flags,
 * result and errno.  Under a seccomp filter nothing is sealed, and a
 * filter about to be installed unseals every ring first: a filter may kill
 * the mprotect of a later claim.
 *
 * Not changed: the kernel's check of MCL_CURRENT against RLIMIT_MEMLOCK
 * counts all mapped address space, the recorder's 16 GiB reservation and
 * its process file among it, so without CAP_IPC_LOCK the call fails under
 * mprof where a program small enough for its limit succeeds natively.
 *
 * Owns the exported mlockall.  Must not allocate (the next definition is
 * looked up at the recorder's start, as rlimit.c does).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload/exported.h"
#include "preload/mlock_watch.h"
#include "preload/next_sym.h"
#include "preload/own_call.h"
#include "preload/process.h"
#include "preload/seccomp_watch.h"
#include "preload/thread.h"
#include "preload/thread_pointer.h"

enum { NEXT_MLOCKALL, NEXT_COUNT };
static const char *const next_names[NEXT_COUNT] = { "mlockall" };
static void *volatile next_slots[NEXT_COUNT];

void mlock_watch_resolve(void)
{
	next_sym_resolve(next_slots, next_names, NEXT_COUNT);
}

void mlock_watch_before(int flags)
{
	int saved = errno;
	struct own_call own;

	/* under a seccomp filter, a claim's mprotect could be killed */
	if (!(flags & MCL_CURRENT) || (flags & MCL_ONFAULT) || !thread_pointer_is_libc() ||
	    seccomp_watch_filtered() ||
	    atomic_load_explicit(&preload_phase, memory_order_acquire) != PRELOAD_READY ||
	    preload_thread_nested() || own_call_active())
		return;
	/* signals blocked: the sealing takes the pool lock, which a handler's
	 * first allocation on this thread could wait for */
	own_call_enter(&own);
	thread_rings_seal_free();
	own_call_leave(&own);
	errno = saved;
}

PRELOAD_API int mlockall(int flags)
{
	int (*fn)(int) = next_sym(next_slots, next_names, NEXT_MLOCKALL);

	mlock_watch_before(flags);
	if (!fn)
		return (int)syscall(SYS_mlockall, flags);
	return fn(flags);
}
