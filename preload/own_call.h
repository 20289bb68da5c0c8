/*
 * preload/own_call.h - the shim's own calls into code that may allocate on
 * its behalf: the loader and the C library while the shim starts
 * (dlsym, dlopen, pthread_atfork), pthread_setspecific when a thread's
 * state is made, and libunwind.
 *
 * What they allocate is the recorder's memory, not the program's: it is
 * served by the nested heap and counted nowhere.  Asynchronous signals are
 * blocked meanwhile, so no signal handler runs inside one, and every other
 * allocation made while the thread is inside the shim is a handler's, the
 * program's own: forwarded to the real allocator and counted as unrecorded
 * (preload/fallback.c).  Under a seccomp filter, which may kill
 * rt_sigprocmask, signals are not blocked, as when the mask is refused: a
 * handler's allocation inside one would be taken for the shim's (the own
 * calls left then are pthread_setspecific's, libunwind being unused).
 */
#ifndef MPROF_PRELOAD_OWN_CALL_H
#define MPROF_PRELOAD_OWN_CALL_H

#include <signal.h>

/* Own calls the calling thread is inside (they nest). */
extern __thread int own_call_depth __attribute__((tls_model("initial-exec")));

/* The signal mask to restore when the call ends. */
struct own_call {
	sigset_t saved;
	int masked;                 /* 0: the mask could not be changed */
};

/* Enters an own call: blocks every signal but those a fault raises
 * (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGSYS), which the kernel
 * would turn into a kill if blocked. */
void own_call_enter(struct own_call *c);

/* Leaves it: restores the mask (a signal that came meanwhile is
 * delivered now). */
void own_call_leave(struct own_call *c);

/* Whether an allocation made now is the recorder's own. */
static inline int own_call_active(void)
{
	return own_call_depth > 0;
}

#endif
