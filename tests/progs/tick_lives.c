/*
 * tick_lives.c - blocks that live less than one tick of the coarse clock,
 * and blocks that live 50 ms.  `tick_lives short`: five 100-byte blocks
 * from short_life, each allocated 20 ms after the last free (so its
 * allocation is timed afresh) and freed at once: each lives microseconds,
 * below the clock's resolution.  `tick_lives long`: three 200-byte blocks
 * from long_life, each freed 50 ms after its allocation.  `tick_lives res`
 * prints the grain of the recorder's event clock in ns, measured here on
 * its own: 2^22 ticks of the x86 time-stamp counter timed against
 * CLOCK_MONOTONIC over 50 ms, elsewhere clock_getres of
 * CLOCK_MONOTONIC_COARSE.  Prints "ok".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

__attribute__((noinline)) static void *short_life(void)
{
	return malloc(100);
}

__attribute__((noinline)) static void *long_life(void)
{
	return malloc(200);
}

static void pause_ms(long ms)
{
	struct timespec nap = { 0, ms * 1000000 };

	nanosleep(&nap, NULL);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";

	if (!strcmp(mode, "res")) {
#if defined(__x86_64__) || defined(__i386__)
		struct timespec a, b;
		unsigned long long t0, t1;
		double ns;

		clock_gettime(CLOCK_MONOTONIC, &a);
		t0 = __rdtsc();
		pause_ms(50);
		clock_gettime(CLOCK_MONOTONIC, &b);
		t1 = __rdtsc();
		ns = (double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec);
		printf("%.0f\n", (double)(1u << 22) * ns / (double)(t1 - t0));
#else
		struct timespec res;

		if (clock_getres(CLOCK_MONOTONIC_COARSE, &res) != 0)
			return 1;
		printf("%lld\n", (long long)res.tv_sec * 1000000000LL + res.tv_nsec);
#endif
		return 0;
	}
	for (int i = 0; i < 5 && !strcmp(mode, "short"); i++) {
		void *volatile p;

		pause_ms(20);
		p = short_life();
		free(p);
	}
	for (int i = 0; i < 3 && !strcmp(mode, "long"); i++) {
		void *volatile p;

		pause_ms(20);
		p = long_life();
		pause_ms(50);
		free(p);
	}
	puts("ok");
	return 0;
}
