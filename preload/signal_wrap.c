/*
 * preload/signal_wrap.c - the exported sigaction, __sigaction, signal,
 * ssignal, bsd_signal, sysv_signal, __sysv_signal, sigset and sigignore,
 * made here so that the recorder sees a program set the toggle signal's
 * disposition before the call takes effect (preload/toggle_signal.h):
 * the launcher must pass no toggle to a handler of the program's.  The C
 * library's own internal calls (posix_spawn, system) and a system call
 * instruction of the program's own (Go's runtime) are not seen;
 * syscall(SYS_rt_sigaction) is (preload/syscall_wrap.c).
 *
 * Owns these entry points.  For any other signal, one comparison more than
 * the C library's.  Never calls malloc; async-signal-safe as sigaction is;
 * changes no argument, and no return value but mprof's handler, which reads
 * as SIG_DFL.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>

#include "preload/exported.h"
#include "preload/next_sym.h"
#include "preload/signal_wrap.h"
#include "preload/toggle_signal.h"

/* Not declared with _GNU_SOURCE (bsd_signal), or deprecated. */
PRELOAD_API __sighandler_t bsd_signal(int sig, __sighandler_t handler);
PRELOAD_API __sighandler_t __sysv_signal(int sig, __sighandler_t handler);
PRELOAD_API int __sigaction(int sig, const struct sigaction *act, struct sigaction *old);

enum {
	NEXT_SIGACTION, NEXT___SIGACTION, NEXT_SIGNAL, NEXT_SSIGNAL, NEXT_BSD_SIGNAL,
	NEXT_SYSV_SIGNAL, NEXT___SYSV_SIGNAL, NEXT_SIGSET, NEXT_SIGIGNORE, NEXT_COUNT
};
static const char *const next_names[NEXT_COUNT] = {
	"sigaction", "__sigaction", "signal", "ssignal", "bsd_signal",
	"sysv_signal", "__sysv_signal", "sigset", "sigignore",
};
static void *volatile next_slots[NEXT_COUNT];

void signal_wrap_resolve(void)
{
	next_sym_resolve(next_slots, next_names, NEXT_COUNT);
}

/* Whether sig is the toggle signal with mprof's handler installed. */
static inline int signal_wrap_toggle(int sig)
{
	return sig > 0 && sig == atomic_load_explicit(&toggle_signal_ours, memory_order_relaxed);
}

/* sigaction through the next definition of names[which]. */
static int signal_wrap_sigaction(int which, int sig, const struct sigaction *act,
				 struct sigaction *old)
{
	int (*fn)(int, const struct sigaction *, struct sigaction *) =
		next_sym(next_slots, next_names, which);
	struct toggle_signal_call call;
	int rc;

	if (!fn) {
		errno = ENOSYS;
		return -1;
	}
	if (!signal_wrap_toggle(sig))
		return fn(sig, act, old);
	toggle_signal_before(sig, act, &call);
	rc = fn(sig, call.keep ? &call.ours : act, old);
	toggle_signal_after(&call);
	if (rc == 0)
		toggle_signal_seen_action(old);
	if (rc == 0 && call.keep)
		toggle_signal_kept(&call, 1);
	return rc;
}

/* A signal()-like call (handler in, old handler out) through the next
 * definition of names[which]. */
static __sighandler_t signal_wrap_handler(int which, int sig, __sighandler_t handler)
{
	__sighandler_t (*fn)(int, __sighandler_t) = next_sym(next_slots, next_names, which);
	struct toggle_signal_call call;
	struct sigaction act;
	__sighandler_t old;

	if (!fn) {
		errno = ENOSYS;
		return SIG_ERR;
	}
	if (!signal_wrap_toggle(sig))
		return fn(sig, handler);
	memset(&act, 0, sizeof(act));
	act.sa_handler = handler;
	toggle_signal_before(sig, &act, &call);
	if (call.keep) {
		toggle_signal_kept(&call, 0);
		return SIG_DFL;
	}
	old = fn(sig, handler);
	toggle_signal_after(&call);
	return old == SIG_ERR ? old : toggle_signal_seen(old);
}

PRELOAD_API int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	return signal_wrap_sigaction(NEXT_SIGACTION, sig, act, old);
}

PRELOAD_API int __sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	return signal_wrap_sigaction(NEXT___SIGACTION, sig, act, old);
}

PRELOAD_API __sighandler_t signal(int sig, __sighandler_t handler)
{
	return signal_wrap_handler(NEXT_SIGNAL, sig, handler);
}

PRELOAD_API __sighandler_t ssignal(int sig, __sighandler_t handler)
{
	return signal_wrap_handler(NEXT_SSIGNAL, sig, handler);
}

PRELOAD_API __sighandler_t bsd_signal(int sig, __sighandler_t handler)
{
	return signal_wrap_handler(NEXT_BSD_SIGNAL, sig, handler);
}

PRELOAD_API __sighandler_t sysv_signal(int sig, __sighandler_t handler)
{
	return signal_wrap_handler(NEXT_SYSV_SIGNAL, sig, handler);
}

PRELOAD_API __sighandler_t __sysv_signal(int sig, __sighandler_t handler)
{
	return signal_wrap_handler(NEXT___SYSV_SIGNAL, sig, handler);
}

/* sigset(3): SIG_HOLD only blocks the signal; SIG_DFL over mprof's handler
 * only unblocks it, and returns SIG_HOLD when it was blocked. */
PRELOAD_API __sighandler_t sigset(int sig, __sighandler_t handler)
{
	__sighandler_t (*fn)(int, __sighandler_t) = next_sym(next_slots, next_names, NEXT_SIGSET);
	struct toggle_signal_call call;
	struct sigaction act;
	sigset_t only, was;
	__sighandler_t old;

	if (!fn) {
		errno = ENOSYS;
		return SIG_ERR;
	}
	if (!signal_wrap_toggle(sig))
		return fn(sig, handler);
	if (handler == SIG_HOLD)
		return toggle_signal_seen(fn(sig, handler));
	memset(&act, 0, sizeof(act));
	act.sa_handler = handler;
	toggle_signal_before(sig, &act, &call);
	if (call.keep) {
		toggle_signal_kept(&call, 0);
		sigemptyset(&only);
		sigaddset(&only, sig);
		if (pthread_sigmask(SIG_UNBLOCK, &only, &was) != 0)
			return SIG_ERR;
		return sigismember(&was, sig) ? SIG_HOLD : SIG_DFL;
	}
	old = fn(sig, handler);
	if (call.masked && old != SIG_ERR) {
		/* sigset saw sig blocked by toggle_signal_before and unblocked
		 * it: the mask put back is without sig, the old disposition was
		 * mprof's handler */
		old = sigismember(&call.saved, sig) ? SIG_HOLD : SIG_DFL;
		sigdelset(&call.saved, sig);
	}
	toggle_signal_after(&call);
	return old == SIG_ERR ? old : toggle_signal_seen(old);
}

PRELOAD_API int sigignore(int sig)
{
	int (*fn)(int) = next_sym(next_slots, next_names, NEXT_SIGIGNORE);
	struct toggle_signal_call call;
	struct sigaction act;
	int rc;

	if (!fn) {
		errno = ENOSYS;
		return -1;
	}
	if (!signal_wrap_toggle(sig))
		return fn(sig);
	memset(&act, 0, sizeof(act));
	act.sa_handler = SIG_IGN;
	toggle_signal_before(sig, &act, &call);
	rc = fn(sig);
	toggle_signal_after(&call);
	return rc;
}
