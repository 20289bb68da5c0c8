/*
 * phases.c - allocations in three timed phases with sleeps between them,
 * for the time windows of `mprof report` (--from/--to/--at) and its
 * filters (each phase allocates from a function of its own).
 *
 * Usage: phases [GAP_MS]   (the sleep between phases, default 500)
 * Expected facts (no stdio: nothing else allocates while it runs):
 *  phase 1 (at about 0):          phase_one   100 x malloc(1000), frees 50 of them
 *  phase 2 (about 1 x GAP_MS on): phase_two    60 x malloc(2000), frees 20 of them
 *                                 and 10 more of phase 1's
 *  phase 3 (about 2 x GAP_MS on): phase_three  30 x malloc(3000), frees 10 of them
 *                                 and 10 more of phase 2's
 *  live after phase 1: 50 x 1000; after phase 2: 40 x 1000 + 40 x 2000;
 *  at exit: 40 x 1000 + 30 x 2000 + 20 x 3000 (160000 B in 90 blocks).
 * stdout: "phases done\n"
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void *volatile p1[100], *volatile p2[60], *volatile p3[30];

__attribute__((noinline)) static void phase_one(void)
{
	for (int i = 0; i < 100; i++)
		p1[i] = malloc(1000);
	for (int i = 0; i < 50; i++)
		free(p1[i]);
}

__attribute__((noinline)) static void phase_two(void)
{
	for (int i = 0; i < 60; i++)
		p2[i] = malloc(2000);
	for (int i = 0; i < 20; i++)
		free(p2[i]);
	for (int i = 50; i < 60; i++)
		free(p1[i]);
}

__attribute__((noinline)) static void phase_three(void)
{
	for (int i = 0; i < 30; i++)
		p3[i] = malloc(3000);
	for (int i = 0; i < 10; i++)
		free(p3[i]);
	for (int i = 20; i < 30; i++)
		free(p2[i]);
}

static void pause_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

	while (nanosleep(&ts, &ts) != 0)
		;
}

int main(int argc, char **argv)
{
	long gap_ms = argc > 1 ? atol(argv[1]) : 500;
	static const char done[] = "phases done\n";

	phase_one();
	pause_ms(gap_ms);
	phase_two();
	pause_ms(gap_ms);
	phase_three();
	if (write(1, done, strlen(done)) < 0)
		return 1;
	return 0;
}
