/*
 * preload/toggle_signal.c - the signal that toggles recording (`mprof run
 * --toggle-signal`, SIGUSR2 with --paused): its handler only asks for a
 * toggle (preload/control.h), which the next allocator call applies.
 *
 * Installs the handler once per process image, only for a signal that may
 * toggle (trace/session.h session_toggle_signal_ok: the launcher refuses
 * the others, this guards a hand-set MPROF_TOGGLE_SIGNAL), and only over
 * the default disposition: a handler or SIG_IGN already in place is the
 * program's and is left alone (a DIAG record says so).  A handler the
 * program installs later replaces ours; the signal then goes to the
 * program.  SA_RESTART, so that the calls signal(7) lists as restarted
 * (read, write, wait...) do not fail with EINTR for a toggle.
 */
#include <signal.h>
#include <string.h>

#include "preload/control.h"
#include "preload/toggle_signal.h"
#include "trace/session.h"

static void toggle_signal_handler(int sig)
{
	(void)sig;
	control_request_toggle();
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
		if (sigaction(sig, &sa, NULL) == 0)
			return 0;
	}
	return TOGGLE_SIGNAL_TAKEN;
}
