/*
 * preload/toggle_signal.c - the signal that toggles recording (`mprof run
 * --toggle-signal`, SIGUSR2 with --paused): its handler only asks for a
 * toggle (preload/control.h), which the next allocator call applies.
 *
 * Installs the handler once per process image, and only over the default
 * disposition: a handler or SIG_IGN already in place is the program's and
 * is left alone (a DIAG record says so).  A handler the program installs
 * later replaces ours; the signal then goes to the program.
 */
#include <signal.h>
#include <string.h>

#include "preload/control.h"
#include "preload/toggle_signal.h"

static void toggle_signal_handler(int sig)
{
	(void)sig;
	control_request_toggle();
}

int toggle_signal_install(int sig)
{
	struct sigaction old, sa;

	if (sig <= 0 || sig >= NSIG || sigaction(sig, NULL, &old) != 0)
		return -1;
	if (!(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_DFL) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = toggle_signal_handler;
		sa.sa_flags = SA_RESTART;
		sigemptyset(&sa.sa_mask);
		if (sigaction(sig, &sa, NULL) == 0)
			return 0;
	}
	return -1;
}
