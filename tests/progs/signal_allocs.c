/*
 * tests/progs/signal_allocs.c - a signal handler that allocates while its
 * thread is inside an allocator call (tests/e2e/signal-allocs.sh).
 *
 * usage: signal_allocs timer SIGNALS | signal_allocs inside LAPS
 * The handler keeps a block of 48 bytes (never freed) and frees one of 32
 * at once: 2 allocations and 1 free a signal.
 *   timer: a 250 us interval timer sends SIGALRM, often while the thread
 *     is inside the recorder; meanwhile the main thread allocates and
 *     frees a 64- and a 200-byte block in a loop, until SIGNALS signals
 *     were handled (the handler stops the timer at that count: one more,
 *     pending then, may come); then it blocks the signal.
 *   inside: LAPS times, malloc(1000) and its free, which raise SIGUSR1
 *     from inside the real allocator when tests/progs/raising_alloc.c is
 *     preloaded after the recorder.
 * Prints "signals S allocations A frees F", what the program made in all
 * (no other allocation: the line is formatted on the stack and written
 * with write(2)); it leaked 48 * S bytes in S blocks.  (malloc is not
 * async-signal-safe; programs call it in handlers anyway.  In timer mode
 * the main loop only reuses glibc's per-thread cache for its two sizes,
 * warmed before the timer starts, so the handler never meets it in a bin.)
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

static volatile sig_atomic_t signals;
static long want_signals; /* timer mode: the handler stops the timer at this count */
static void *kept;

__attribute__((noinline)) static void *handler_alloc(size_t size_bytes)
{
	return malloc(size_bytes);
}

__attribute__((noinline)) static void *main_alloc(size_t size_bytes)
{
	return malloc(size_bytes);
}

static void on_signal(int sig)
{
	void **p = handler_alloc(48);

	(void)sig;
	if (p) {
		*p = kept; /* a list, so the blocks stay reachable */
		kept = p;
	}
	free(handler_alloc(32));
	signals++;
	/* here, not after the main loop sees the count: a lap of that loop
	 * can last many timer periods on a busy host (at most one more
	 * signal, one pending now, comes after this) */
	if (want_signals && signals == want_signals) {
		struct itimerval stop = { { 0, 0 }, { 0, 0 } };

		setitimer(ITIMER_REAL, &stop, NULL);
	}
}

static void handle(int sig)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESTART;
	sigaction(sig, &sa, NULL);
}

/* Main-loop laps until want signals came; returns the laps. */
static long run_timer(long want)
{
	struct itimerval every = { { 0, 250 }, { 0, 250 } }, stop = { { 0, 0 }, { 0, 0 } };
	sigset_t alarm_set;
	long laps = 1;

	free(main_alloc(64));
	free(main_alloc(200));
	want_signals = want;
	handle(SIGALRM);
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
	return laps;
}

static void run_inside(long laps)
{
	handle(SIGUSR1);
	for (long i = 0; i < laps; i++)
		free(main_alloc(1000));
}

int main(int argc, char **argv)
{
	long n = argc > 2 ? atol(argv[2]) : 0, allocs, frees;
	char line[96];
	int len;

	if (argc != 3 || n <= 0 || (strcmp(argv[1], "timer") && strcmp(argv[1], "inside"))) {
		fprintf(stderr, "usage: signal_allocs timer SIGNALS | signal_allocs inside LAPS\n");
		return 2;
	}
	if (strcmp(argv[1], "timer") == 0) {
		long laps = run_timer(n);

		allocs = 2 * laps;
		frees = 2 * laps;
	} else {
		run_inside(n);
		allocs = frees = n;
	}
	allocs += 2 * (long)signals;
	frees += (long)signals;
	len = snprintf(line, sizeof(line), "signals %ld allocations %ld frees %ld\n",
		       (long)signals, allocs, frees);
	return write(1, line, (size_t)len) == len ? 0 : 1;
}
