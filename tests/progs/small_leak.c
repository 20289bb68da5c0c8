/*
 * small_leak.c - a short program with a known profile, for tests that are
 * about the trace file rather than the program (deleted binary, truncated
 * trace, error paths).
 *
 * Usage: small_leak [MARKER_FILE]  (creates MARKER_FILE when it runs, so a
 * test can tell whether the program was started at all)
 * Expected facts: lose_blocks: 3 x malloc(3000), live at exit (3 / 9000);
 * spin: 20000 malloc/free pairs of 16 + i % 100 bytes (20000 allocations,
 * 1310000 bytes, 0 live at exit).
 * stdout: "small_leak done\n"
 */
#include <stdio.h>
#include <stdlib.h>

static void *volatile keep[4];

__attribute__((noinline)) static void lose_blocks(void)
{
	for (int i = 0; i < 3; i++)
		keep[i] = malloc(3000);
}

__attribute__((noinline)) static void spin(void)
{
	for (int i = 0; i < 20000; i++) {
		void *p = malloc(16 + i % 100);
		keep[3] = p;
		free(p);
	}
}

int main(int argc, char **argv)
{
	if (argc > 1) {
		FILE *f = fopen(argv[1], "w");
		if (f)
			fclose(f);
	}
	lose_blocks();
	spin();
	printf("small_leak done\n");
	return 0;
}
