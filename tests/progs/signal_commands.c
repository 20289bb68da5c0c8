/*
 * tests/progs/signal_commands.c - a program that takes commands by signal,
 * as daemons do, for what reaches it when the signals are sent to
 * `mprof run` (tests/e2e/signal-commands.sh).
 *
 * Usage: signal_commands READY_FILE
 *   Catches SIGUSR1, SIGUSR2, SIGWINCH, SIGALRM and SIGRTMIN+1, creates
 *   READY_FILE, then prints one line per signal as it comes ("got USR1";
 *   "got RTMIN+1 value 42" with sigqueue's value) and allocates 100 B in
 *   on_command() for each.  Exits 0 after all five came, or 3 after 60 s
 *   (the tests wait up to 60 s for each line: 20 s was a test's margin on
 *   a loaded host, not a check).
 * Usage: signal_commands send PID SIG VALUE
 *   sigqueue(PID, SIG, VALUE): a sender whose value must arrive.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t got[5], value_rt;
static void *volatile keep;

static void on_signal(int sig, siginfo_t *si, void *ctx)
{
	(void)ctx;
	if (sig == SIGUSR1)
		got[0] = 1;
	else if (sig == SIGUSR2)
		got[1] = 1;
	else if (sig == SIGWINCH)
		got[2] = 1;
	else if (sig == SIGALRM)
		got[3] = 1;
	else if (sig == SIGRTMIN + 1) {
		got[4] = 1;
		value_rt = si->si_code == SI_QUEUE ? si->si_value.sival_int : -1;
	}
}

__attribute__((noinline)) static void on_command(void)
{
	keep = malloc(100);
}

int main(int argc, char **argv)
{
	static const char *names[] = { "USR1", "USR2", "WINCH", "ALRM", "RTMIN+1" };
	int sigs[] = { SIGUSR1, SIGUSR2, SIGWINCH, SIGALRM, SIGRTMIN + 1 };
	int seen[5] = { 0 }, count = 0;
	struct sigaction sa;
	sigset_t block, old;
	time_t start = time(NULL);
	FILE *f;

	if (argc == 5 && strcmp(argv[1], "send") == 0) {
		union sigval v = { .sival_int = atoi(argv[4]) };

		return sigqueue((pid_t)atoi(argv[2]), atoi(argv[3]), v) == 0 ? 0 : 1;
	}
	if (argc != 2)
		return 2;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&block);
	for (int i = 0; i < 5; i++) {
		sigaction(sigs[i], &sa, NULL);
		sigaddset(&block, sigs[i]);
	}
	sigprocmask(SIG_BLOCK, &block, &old);
	f = fopen(argv[1], "w");
	if (!f)
		return 2;
	fclose(f);
	while (count < 5 && time(NULL) - start < 60) {
		struct timespec ts = { 0, 50 * 1000 * 1000 };

		sigprocmask(SIG_SETMASK, &old, NULL);
		nanosleep(&ts, NULL);
		sigprocmask(SIG_BLOCK, &block, NULL);
		for (int i = 0; i < 5; i++) {
			if (!got[i] || seen[i])
				continue;
			seen[i] = 1;
			count++;
			on_command();
			if (i == 4)
				printf("got %s value %d\n", names[i], (int)value_rt);
			else
				printf("got %s\n", names[i]);
			fflush(stdout);
		}
	}
	return count == 5 ? 0 : 3;
}
