/*
 * preload/toggle_signal.c - the signal that toggles recording (`mprof run
 * --toggle-signal`, SIGUSR2 with --paused): its handler only asks for a
 * toggle, timed now (preload/control.h), which the next allocator call
 * applies.
 *
 * Installs the handler once per process image, only for a signal that may
 * toggle (trace/session.h session_toggle_signal_ok: the launcher refuses
 * the others, this guards a hand-set MPROF_TOGGLE_SIGNAL), and only over
 * the default disposition: a handler or SIG_IGN already in place is the
 * program's and is left alone (a DIAG record says so).  mprof's handler
 * stands for the default: the program reads SIG_DFL as the old action, and
 * its SIG_DFL keeps mprof's handler.  A handler or SIG_IGN the program sets
 * later takes the signal: the process file says so before the call takes
 * effect (preload/signal_wrap.c sees the C library's entry points), so that
 * the launcher passes it no toggle (HotSpot's JVM takes SIGUSR2 for thread
 * suspension before it starts a thread, and died of one; Go's runtime takes
 * every signal at its start, through sigaction with cgo); a system call of
 * the program's own is seen when a thread starts recording, and at exit.  SA_RESTART, so that the
 * calls signal(7) lists as restarted (read, write, wait...) do not fail
 * with EINTR for a toggle.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "preload/clock.h"
#include "preload/control.h"
#include "preload/diag.h"
#include "preload/next_sym.h"
#include "preload/process.h"
#include "preload/seccomp_watch.h"
#include "preload/text.h"
#include "preload/toggle_signal.h"
#include "preload/wait.h"
#include "trace/session.h"

/* The kernel's flag that the C library's sigaction sets (its restorer),
 * which <signal.h> does not name. */
#ifndef SA_RESTORER
#define SA_RESTORER 0x04000000
#endif

/* How long a program's call waits for a launcher passing a toggle on: it
 * only makes one kill() meanwhile, unless it is stopped. */
#define TOGGLE_PASSING_WAIT_NS 2000000000ll

_Atomic int toggle_signal_ours;
/* 1 once the program set a disposition of its own through a wrapper, and
 * what the process file was told then. */
static _Atomic int toggle_signal_gone;
static char toggle_signal_told[200];
/* The flags of the SIG_DFL action the program set last through sigaction
 * over mprof's handler (whose mask it was given), read back as that
 * action's; -1 before one, or after a SIG_DFL set by signal() and its kin:
 * read back as no flags and an empty mask. */
static _Atomic long long toggle_signal_dfl_flags = -1;

static const char *const next_names[1] = { "sigaction" };
static void *volatile next_slots[1];

static void toggle_signal_handler(int sig)
{
	int saved_errno = errno;

	(void)sig;
	control_request_toggle();
	errno = saved_errno;
}

int toggle_signal_real_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	int (*fn)(int, const struct sigaction *, struct sigaction *) =
		next_sym(next_slots, next_names, 0);

	if (!fn) {
		errno = ENOSYS;
		return -1;
	}
	return fn(sig, act, old);
}

/* Whether action sa is mprof's handler. */
static int toggle_signal_is_ours(const struct sigaction *sa)
{
	return !(sa->sa_flags & SA_SIGINFO) && sa->sa_handler == toggle_signal_handler;
}

int toggle_signal_install(int sig)
{
	struct sigaction old, sa;

	if (sig <= 0 || sig >= NSIG || !session_toggle_signal_ok(sig))
		return TOGGLE_SIGNAL_REFUSED;
	if (toggle_signal_real_sigaction(sig, NULL, &old) != 0)
		return TOGGLE_SIGNAL_TAKEN;
	if (!(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_DFL) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = toggle_signal_handler;
		sa.sa_flags = SA_RESTART;
		sigemptyset(&sa.sa_mask);
		if (toggle_signal_real_sigaction(sig, &sa, NULL) == 0) {
			atomic_store(&toggle_signal_ours, sig);
			return 0;
		}
	}
	return TOGGLE_SIGNAL_TAKEN;
}

/* The signal's name for the diagnostics: "SIGUSR2", or "a real-time
 * signal", appended to text. */
static void toggle_signal_name(char *text, size_t cap, int sig)
{
	const char *name = sigabbrev_np(sig);

	preload_text_append(text, cap, name ? "SIG" : "a real-time signal");
	if (name)
		preload_text_append(text, cap, name);
}

/* Monotonic time, ns. */
static long long toggle_signal_now_ns(void)
{
	struct timespec ts;

	preload_clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

/* Waits while the launcher passes a toggle on to the image of header h, up
 * to TOGGLE_PASSING_WAIT_NS (it only makes one kill() meanwhile, unless it
 * is stopped). */
static void toggle_signal_wait_passing(struct session_proc_header *h)
{
	long long until;

	if (!atomic_load(&h->toggle_passing))
		return;
	until = toggle_signal_now_ns() + TOGGLE_PASSING_WAIT_NS;
	while (atomic_load(&h->toggle_passing) && toggle_signal_now_ns() < until)
		preload_yield();
}

/* Takes the signals sig pending for the thread or the process as toggles;
 * only holds sig, which the calling thread blocks.  The system call, not
 * sigtimedwait(3), which is a cancellation point. */
static void toggle_signal_take_pending(int sig, const sigset_t *only)
{
	static const struct timespec zero = { 0, 0 };

	for (;;) {
		long got = syscall(SYS_rt_sigtimedwait, only, NULL, &zero, _NSIG / 8);

		if (got == sig)
			control_request_toggle();
		else if (got < 0 && errno != EINTR)
			break;
	}
}

/* Tells the launcher that the program takes signal sig (ignore: sets
 * SIG_IGN), then waits while it passes a toggle on, up to
 * TOGGLE_PASSING_WAIT_NS: the flag set first, that toggle is either never
 * sent or sent before the wait ends (the launcher sets toggle_passing
 * before it reads the flag). */
static void toggle_signal_tell(int sig, int ignore)
{
	struct session_proc_header *h = preload_proc.hdr;
	char *text = toggle_signal_told;

	text[0] = '\0';
	preload_text_append(text, sizeof(toggle_signal_told),
			    ignore ? "the program set the toggle signal (" :
				     "the program replaced mprof's handler of the toggle signal (");
	toggle_signal_name(text, sizeof(toggle_signal_told), sig);
	preload_text_append(text, sizeof(toggle_signal_told),
			    ignore ? ") to be ignored over mprof's handler" : ") with its own");
	atomic_store(&toggle_signal_gone, 1);
	if (!h)
		return;
	diag_note(TRACE_DIAG_TOGGLE_TAKEN, text);
	atomic_fetch_or(&h->diag_flags, 1u << TRACE_DIAG_TOGGLE_TAKEN);
	toggle_signal_wait_passing(h);
}

/* toggle_signal_before, but for errno. */
static void toggle_signal_prepare(int sig, const struct sigaction *act,
				  struct toggle_signal_call *call)
{
	struct sigaction now;
	sigset_t only;

	call->keep = 0;
	call->masked = 0;
	/* a vfork child shares our memory but not our dispositions: what it
	 * sets is its own, and must not mark the recorded process as taking sig */
	if (!act || sig != atomic_load_explicit(&toggle_signal_ours, memory_order_relaxed) ||
	    atomic_load_explicit(&toggle_signal_gone, memory_order_relaxed) ||
	    toggle_signal_is_ours(act) || (uint32_t)getpid() != preload_proc.view.ns_pid ||
	    toggle_signal_real_sigaction(sig, NULL, &now) != 0 ||
	    !toggle_signal_is_ours(&now))
		return;
	if (!(act->sa_flags & SA_SIGINFO) && act->sa_handler == SIG_DFL) {
		/* mprof's handler as installed, with the program's mask */
		call->keep = 1;
		call->flags = act->sa_flags;
		call->ours = now;
		call->ours.sa_mask = act->sa_mask;
		return;
	}
	/* a toggle sent before the flag, still pending, is mprof's: taken here
	 * with sig blocked, it cannot reach the program's handler */
	sigemptyset(&only);
	sigaddset(&only, sig);
	call->masked = pthread_sigmask(SIG_BLOCK, &only, &call->saved) == 0;
	toggle_signal_tell(sig, !(act->sa_flags & SA_SIGINFO) && act->sa_handler == SIG_IGN);
	if (call->masked)
		toggle_signal_take_pending(sig, &only);
}

void toggle_signal_before(int sig, const struct sigaction *act, struct toggle_signal_call *call)
{
	int saved_errno = errno;

	toggle_signal_prepare(sig, act, call);
	errno = saved_errno;
}

void toggle_signal_kept(const struct toggle_signal_call *call, int with_action)
{
	long long flags = with_action ? (long long)(unsigned)call->flags : -1;

	atomic_store_explicit(&toggle_signal_dfl_flags, flags, memory_order_relaxed);
}

void toggle_signal_after(const struct toggle_signal_call *call)
{
	if (call->masked)
		pthread_sigmask(SIG_SETMASK, &call->saved, NULL);
}

void toggle_signal_exec(void)
{
	struct session_proc_header *h = preload_proc.hdr;
	int sig = atomic_load_explicit(&toggle_signal_ours, memory_order_relaxed);
	int saved_errno = errno;
	sigset_t only, saved;

	if (!sig || !h || atomic_load_explicit(&toggle_signal_gone, memory_order_relaxed))
		return;
	sigemptyset(&only);
	sigaddset(&only, sig);
	if (pthread_sigmask(SIG_BLOCK, &only, &saved) != 0)
		return;
	toggle_signal_wait_passing(h);
	/* a toggle pending for the process would outlive the exec and meet
	 * the new image's default action: taken here, with sig blocked */
	toggle_signal_take_pending(sig, &only);
	pthread_sigmask(SIG_SETMASK, &saved, NULL);
	errno = saved_errno;
}

__sighandler_t toggle_signal_seen(__sighandler_t handler)
{
	return handler == toggle_signal_handler ? SIG_DFL : handler;
}

void toggle_signal_seen_action(struct sigaction *old)
{
	long long flags = atomic_load_explicit(&toggle_signal_dfl_flags, memory_order_relaxed);

	if (!old || !toggle_signal_is_ours(old))
		return;
	old->sa_handler = SIG_DFL;
	if (flags >= 0) { /* the kernel's mask and restorer are the program's */
		old->sa_flags = (int)(unsigned)flags | (old->sa_flags & SA_RESTORER);
		return;
	}
	memset(old, 0, sizeof(*old));
	old->sa_handler = SIG_DFL;
	sigemptyset(&old->sa_mask);
}

void toggle_signal_seen_kernel(unsigned long *old, unsigned long mask_bytes)
{
	long long flags = atomic_load_explicit(&toggle_signal_dfl_flags, memory_order_relaxed);

	if (!old || (old[1] & SA_SIGINFO) || old[0] != (unsigned long)toggle_signal_handler)
		return;
	old[0] = (unsigned long)SIG_DFL;
	if (flags >= 0) { /* the kernel's mask and restorer are the program's */
		old[1] = (unsigned long)flags | (old[1] & SA_RESTORER);
		return;
	}
	/* handler, flags, restorer, then the mask */
	memset(old, 0, 3 * sizeof(*old) + mask_bytes);
}

void toggle_signal_check(void)
{
	static _Atomic int said;
	int sig = atomic_load_explicit(&toggle_signal_ours, memory_order_relaxed);
	struct sigaction now;
	char text[200] = "the program replaced mprof's handler of the toggle signal (";

	if (!sig || atomic_load_explicit(&said, memory_order_relaxed))
		return;
	/* under a filter, which may kill sigaction, only what the wrappers saw */
	if (!atomic_load(&toggle_signal_gone) &&
	    (seccomp_watch_filtered() || toggle_signal_real_sigaction(sig, NULL, &now) != 0 ||
	     toggle_signal_is_ours(&now)))
		return;
	if (atomic_exchange(&said, 1))
		return;
	if (atomic_load(&toggle_signal_gone)) {
		diag_report(TRACE_DIAG_TOGGLE_TAKEN, toggle_signal_told);
		return;
	}
	toggle_signal_name(text, sizeof(text), sig);
	preload_text_append(text, sizeof(text), ") with its own");
	diag_report(TRACE_DIAG_TOGGLE_TAKEN, text);
}
