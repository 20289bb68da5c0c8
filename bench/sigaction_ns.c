/*
 * bench/sigaction_ns.c - the cost of one sigaction call, timed inside the
 * program: usage sigaction_ns N SIG [read].  Times N calls that set SIG's
 * handler (the same each time; with "read", N calls that only read the
 * action) with CLOCK_THREAD_CPUTIME_ID after 10^4 of warm-up and prints
 * "ns/call X".  Under mprof run --paused with SIG 12 (SIGUSR2) it measures
 * the toggle signal's path (preload/signal_wrap.c), with another signal
 * the one comparison every other call pays.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "thread_clock.h"

static void handler(int sig)
{
	(void)sig;
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000000;
	int sig = argc > 2 ? atoi(argv[2]) : SIGTERM;
	int read_only = argc > 3 && strcmp(argv[3], "read") == 0;
	struct sigaction sa, old;
	double t0;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sigemptyset(&sa.sa_mask);
	if (!read_only && sigaction(sig, &sa, NULL) != 0)
		return 1;
	for (unsigned long i = 0; i < 10000; i++)
		sigaction(sig, read_only ? NULL : &sa, &old);
	t0 = now_ns();
	for (unsigned long i = 0; i < n; i++)
		sigaction(sig, read_only ? NULL : &sa, &old);
	printf("ns/call %.1f\n", (now_ns() - t0) / (double)n);
	return 0;
}
