/*
 * preload/own_call.c - blocking signals around the shim's own calls that
 * may allocate (see own_call.h).
 *
 * Owns the per-thread depth.  Must not allocate; pthread_sigmask is one
 * system call, with no lock.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>

#include "preload/own_call.h"
#include "preload/seccomp_watch.h"

__thread int own_call_depth __attribute__((tls_model("initial-exec")));

void own_call_enter(struct own_call *c)
{
	static const int fault_signals[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGSYS };
	sigset_t block;

	sigfillset(&block);
	for (unsigned i = 0; i < sizeof(fault_signals) / sizeof(fault_signals[0]); i++)
		sigdelset(&block, fault_signals[i]);
	/* an allow-list filter may kill rt_sigprocmask: unmasked then, as
	 * when it is refused */
	c->masked = !seccomp_watch_filtered() && pthread_sigmask(SIG_BLOCK, &block, &c->saved) == 0;
	own_call_depth++;
}

void own_call_leave(struct own_call *c)
{
	own_call_depth--;
	if (c->masked)
		pthread_sigmask(SIG_SETMASK, &c->saved, NULL);
}
