/*
 * tests/progs/signal_allocs.c - a signal handler that allocates, often
 * while its thread is inside the recorder (tests/e2e/signal-allocs.sh).
 *
 * usage: signal_allocs SIGNALS
 * A 250 us interval timer sends SIGALRM; the handler keeps a block of 48
 * bytes (never freed) and frees one of 32 at once: 2 allocations a
 * signal.  Meanwhile the main thread allocates and frees a 64- and a
 * 200-byte block in a loop (2 allocations a lap), until SIGNALS signals
 * were handled; then it stops the timer and blocks the signal.  Prints
 * "signals S laps L" (no other allocation: the line is formatted on the
 * stack and written with write(2)), so the program made 2 * (S + L)
 * allocations and leaked 48 * S bytes in S blocks.  (malloc is not
 * async-signal-safe; programs call it in handlers anyway.  Here the main
 * loop only reuses glibc's per-thread cache for its two sizes, warmed
 * before the timer starts, so the handler never meets it in a bin.)
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

static volatile sig_atomic_t signals;
static void *kept;

__attribute__((noinline)) static void *handler_alloc(size_t size_bytes)
{
	return malloc(size_bytes);
}

__attribute__((noinline)) static void *main_alloc(size_t size_bytes)
{
	return malloc(size_bytes);
}

static void on_alarm(int sig)
{
	void **p = handler_alloc(48);

	(void)sig;
	if (p) {
		*p = kept; /* a list, so the blocks stay reachable */
		kept = p;
	}
	free(handler_alloc(32));
	signals++;
}

int main(int argc, char **argv)
{
	long want = argc > 1 ? atol(argv[1]) : 0, laps = 0;
	struct itimerval every = { { 0, 250 }, { 0, 250 } }, stop = { { 0, 0 }, { 0, 0 } };
	struct sigaction sa;
	sigset_t alarm_set;
	char line[64];
	int n;

	if (want <= 0) {
		fprintf(stderr, "usage: signal_allocs SIGNALS\n");
		return 2;
	}
	free(main_alloc(64));
	free(main_alloc(200));
	laps = 1;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &every, NULL);
	while (signals < want) {
		void *a = main_alloc(64), *b = main_alloc(200);

		free(a);
		free(b);
		laps++;
	}
	setitimer(ITIMER_REAL, &stop, NULL);
	sigemptyset(&alarm_set);
	sigaddset(&alarm_set, SIGALRM);
	sigprocmask(SIG_BLOCK, &alarm_set, NULL);
	n = snprintf(line, sizeof(line), "signals %ld laps %ld\n", (long)signals, laps);
	return write(1, line, (size_t)n) == n ? 0 : 1;
}
