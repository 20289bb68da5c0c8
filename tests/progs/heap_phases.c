/*
 * heap_phases.c - a heap that goes up and down in known steps, with pauses
 * long enough for the launcher's RSS samples (every 100 ms) even on a loaded
 * host that runs the launcher late, for the timeline and `--format massif`
 * tests.
 *
 * Expected facts (no output; every size exact):
 *   small_a, small_b, small_c: 1000 B each, at the start, never freed;
 *   phase 1: grow_a: 8 x malloc(1 MiB), touched, never freed; pause 400 ms;
 *   phase 2: grow_b: 16 x malloc(1 MiB), touched; pause 1500 ms;
 *   phase 3: grow_b's 16 blocks freed; pause 1000 ms; exit.
 * Heap: 3000 B, then H1 = 8 MiB + 3000 B, the peak H2 = 24 MiB + 3000 B
 * (27 blocks), then H1 again until the exit (leaked: H1 in 11 blocks).
 * 1 MiB blocks are mmapped by glibc, so RSS follows: >= H2 in phase 2,
 * below it again in phase 3.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MIB (1 << 20)

static void *volatile keep[32];

__attribute__((noinline)) static void *small_a(void) { return malloc(1000); }
__attribute__((noinline)) static void *small_b(void) { return malloc(1000); }
__attribute__((noinline)) static void *small_c(void) { return malloc(1000); }

__attribute__((noinline)) static void grow_a(void)
{
	for (int i = 0; i < 8; i++) {
		keep[i] = malloc(MIB);
		memset(keep[i], 1, MIB);
	}
}

__attribute__((noinline)) static void grow_b(void)
{
	for (int i = 8; i < 24; i++) {
		keep[i] = malloc(MIB);
		memset(keep[i], 2, MIB);
	}
}

__attribute__((noinline)) static void shrink_b(void)
{
	for (int i = 8; i < 24; i++)
		free(keep[i]);
}

int main(void)
{
	keep[24] = small_a();
	keep[25] = small_b();
	keep[26] = small_c();
	grow_a();
	usleep(400000);
	grow_b();
	usleep(1500000);
	shrink_b();
	usleep(1000000);
	return 0;
}
