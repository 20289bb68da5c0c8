/*
 * cli/signals.c - passing the signals another process sends to mprof on to
 * the profiled program.
 *
 * Scripts signal the pid they started, which is mprof's: termination
 * requests (SIGINT, SIGTERM, SIGHUP, SIGQUIT), the signals daemons take
 * commands by (SIGUSR1, SIGUSR2, SIGWINCH: nginx and Apache reopen logs or
 * stop gracefully), timers and the real-time signals, and SIGABRT (asking
 * a hung program for a core dump).  Only signals sent by another process
 * (kill, sigqueue, tgkill: si_code SI_USER, SI_QUEUE or SI_TKILL, with the
 * sender's pid, or 0 for one outside mprof's PID namespace) are forwarded; a terminal's Ctrl-C, Ctrl-\ or window resize
 * already reached the program, which is in the same foreground process
 * group.  Nor are the signals the program's own process tree sends: one
 * sent to its process group (kill(0, sig)) has reached it already, and one
 * sent to its parent was meant for the parent, which mprof stands in for.
 * Either way the launcher does not die: it goes on collecting until
 * the program has ended and then finalizes the traces.  The handler only
 * calls kill(), sigqueue(), raise() and the open(), read() and close() of
 * pid_lineage.c, which are async-signal-safe.
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include "cli/pid_lineage.h"
#include "cli/signals.h"

static volatile sig_atomic_t forward_pid;
static volatile sig_atomic_t toggle_sig;     /* the toggle signal, or 0 */
static volatile sig_atomic_t toggle_pending; /* one came, not passed on yet */

/* The fixed set (see the top), then the real-time signals but the C
 * library's own, then the toggle signal when it is not among them. */
static const int forwarded_fixed[] = {
	SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGWINCH, SIGALRM,
	SIGVTALRM, SIGPROF, SIGIO, SIGPWR, SIGSTKFLT, SIGABRT,
};
#define FORWARDED_MAX (sizeof(forwarded_fixed) / sizeof(forwarded_fixed[0]) + 33)
static int forwarded[FORWARDED_MAX];
static size_t forwarded_count;

static void forwarded_add(int sig)
{
	for (size_t i = 0; i < forwarded_count; i++)
		if (forwarded[i] == sig)
			return;
	if (forwarded_count < FORWARDED_MAX)
		forwarded[forwarded_count++] = sig;
}

static void forward(int sig, const siginfo_t *si)
{
	pid_t pid = (pid_t)forward_pid;

	if (sig == SIGABRT && (!si || si->si_pid == getpid())) {
		/* the launcher's own abort(): it dies of it as it would have */
		signal(SIGABRT, SIG_DFL);
		raise(SIGABRT);
		return;
	}
	/* si_pid is 0 for a sender outside mprof's PID namespace (docker stop,
	 * a container runtime): still another process's signal */
	if (pid <= 0 || !si)
		return;
	if (si->si_code != SI_USER && si->si_code != SI_QUEUE && si->si_code != SI_TKILL)
		return;
	if (pid_lineage_below(si->si_pid, pid))
		return;
	if (sig == toggle_sig)
		toggle_pending = 1; /* the launcher's loop passes it on */
	else if (si->si_code == SI_QUEUE)
		sigqueue(pid, sig, si->si_value); /* with the sender's value */
	else
		kill(pid, sig);
}

/* forward(), leaving errno as the interrupted code had it: the /proc
 * reads and the kill may set it. */
static void forward_handler(int sig, siginfo_t *si, void *ctx)
{
	int saved_errno = errno;

	(void)ctx;
	forward(sig, si);
	errno = saved_errno;
}

void signals_block(int toggle_signal, sigset_t *old_mask)
{
	sigset_t set;

	for (size_t i = 0; i < sizeof(forwarded_fixed) / sizeof(forwarded_fixed[0]); i++)
		forwarded_add(forwarded_fixed[i]);
	for (int sig = SIGRTMIN; sig <= SIGRTMAX; sig++)
		forwarded_add(sig);
	if (toggle_signal > 0) {
		forwarded_add(toggle_signal);
		toggle_sig = toggle_signal;
	}
	sigemptyset(&set);
	for (size_t i = 0; i < forwarded_count; i++)
		sigaddset(&set, forwarded[i]);
	sigprocmask(SIG_BLOCK, &set, old_mask);
}

void signals_forward_start(pid_t pid, const sigset_t *old_mask)
{
	struct sigaction sa;

	forward_pid = pid;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = forward_handler;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < forwarded_count; i++)
		sigaction(forwarded[i], &sa, NULL);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
	sigaction(SIGXFSZ, &sa, NULL); /* a full disk or file-size limit is an error, not death */
	/* An inherited SIG_IGN for SIGCHLD would reap the program behind our
	 * back and lose its exit status; the program keeps what it inherited
	 * because it was forked before this. */
	sa.sa_handler = SIG_DFL;
	sigaction(SIGCHLD, &sa, NULL);
	sigprocmask(SIG_SETMASK, old_mask, NULL);
}

bool signals_toggle_take(void)
{
	if (!toggle_pending)
		return false;
	toggle_pending = 0;
	return true;
}

bool signals_toggle_pending(void)
{
	return toggle_pending != 0;
}

void signals_forward_stop(void)
{
	forward_pid = 0;
}

void signals_end_by(int sig)
{
	struct sigaction sa;
	struct rlimit rl;
	sigset_t set;

	fflush(NULL);
	/* The program dumped its own core, if any: not the launcher too
	 * (prctl for a core_pattern pipe, which ignores a zero RLIMIT_CORE). */
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	if (getrlimit(RLIMIT_CORE, &rl) == 0) {
		rl.rlim_cur = 0;
		setrlimit(RLIMIT_CORE, &rl);
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise(sig);
}
