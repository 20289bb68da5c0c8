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
 * program's and is left alone (a DIAG record says so).  A handler the
 * program installs later replaces ours; the signal then goes to the
 * program, and a DIAG record says so once it is seen (when a thread starts
 * recording, and at exit): Go's runtime takes every signal at its start,
 * and toggles sent to a Go program did nothing, with no word of why.
 * SA_RESTART, so that the calls signal(7) lists as restarted (read, write,
 * wait...) do not fail with EINTR for a toggle.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>

#include "preload/control.h"
#include "preload/diag.h"
#include "preload/text.h"
#include "preload/toggle_signal.h"
#include "trace/session.h"

/* The signal whose handler is ours, 0 before (or without) one. */
static int toggle_signal_ours;

static void toggle_signal_handler(int sig)
{
	int saved_errno = errno;

	(void)sig;
	control_request_toggle();
	errno = saved_errno;
}

int toggle_signal_install(int sig)
{
	struct sigaction old, sa;

	if (sig <= 0 || sig >= NSIG || !session_toggle_signal_ok(sig))
		return TOGGLE_SIGNAL_REFUSED;
	if (sigaction(sig, NULL, &old) != 0)
		return TOGGLE_SIGNAL_TAKEN;
	if (!(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_DFL) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = toggle_signal_handler;
		sa.sa_flags = SA_RESTART;
		sigemptyset(&sa.sa_mask);
		if (sigaction(sig, &sa, NULL) == 0) {
			toggle_signal_ours = sig;
			return 0;
		}
	}
	return TOGGLE_SIGNAL_TAKEN;
}

void toggle_signal_check(void)
{
	static _Atomic int said;
	int sig = toggle_signal_ours;
	struct sigaction now;
	char text[200] = "the program replaced mprof's handler of the toggle signal (";
	const char *name;

	if (!sig || atomic_load_explicit(&said, memory_order_relaxed) ||
	    sigaction(sig, NULL, &now) != 0 ||
	    (!(now.sa_flags & SA_SIGINFO) && now.sa_handler == toggle_signal_handler) ||
	    atomic_exchange(&said, 1))
		return;
	name = sigabbrev_np(sig);
	preload_text_append(text, sizeof(text), name ? "SIG" : "a real-time signal");
	if (name)
		preload_text_append(text, sizeof(text), name);
	preload_text_append(text, sizeof(text), ") with its own");
	diag_report(TRACE_DIAG_TOGGLE_TAKEN, text);
}
