/*
 * wording_diff.c - sites for the wording of `mprof diff` (tests/e2e/
 * wording-diff.sh).  Argument "a" or "b"; N is 2 for a, 3 for b:
 *   kept:      N blocks of 64 B, never freed (no lifetime on either side)
 *   freed:     N + 2 blocks of 32 B, each freed at once
 *   only_b:    one block of 16 B, never freed, in b alone (new)
 *   two_lines: N blocks of 8 B at TWO_LINES_LOOP and one of 9 B at
 *              TWO_LINES_TAIL, each freed at once: two sites of each trace
 *              that differ only in their line, whose own maxima (8 B, 9 B)
 *              sum to 17 B though at most 9 B were live at once
 * Prints nothing; exits with status 0.
 */
#include <stdlib.h>
#include <string.h>

void *volatile wording_keep;

__attribute__((noinline)) static void kept(int n)
{
	for (int i = 0; i < n; i++)
		wording_keep = malloc(64);
}

__attribute__((noinline)) static void freed(int n)
{
	for (int i = 0; i < n; i++) {
		wording_keep = malloc(32);
		free(wording_keep);
	}
}

__attribute__((noinline)) static void only_b(void)
{
	wording_keep = malloc(16);
}

__attribute__((noinline)) static void two_lines(int n)
{
	for (int i = 0; i < n; i++) {
		wording_keep = malloc(8); /* TWO_LINES_LOOP */
		free(wording_keep);
	}
	wording_keep = malloc(9); /* TWO_LINES_TAIL */
	free(wording_keep);
}

int main(int argc, char **argv)
{
	int b = argc > 1 && strcmp(argv[1], "b") == 0, n = b ? 3 : 2;

	kept(n);
	freed(n + 2);
	if (b)
		only_b();
	two_lines(n);
	return 0;
}
