/*
 * sample_margins.c - N blocks of S bytes, the first half freed at once and
 * the rest live at exit, for the margins of sampled estimates
 * (tests/e2e/sample-margins.sh).
 *
 * Usage: sample_margins N S
 * Expected facts: N allocations of S bytes (N * S allocated), N - N/2
 * blocks live at exit ((N - N/2) * S bytes), and stdio's buffer of stdout
 * (one more block, 4096 B to a file, never freed: live at exit); stdout
 * "sample_margins N S\n".
 */
#include <stdio.h>
#include <stdlib.h>

static void *volatile sink;

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100;
	size_t s = argc > 2 ? (size_t)atol(argv[2]) : 1000;

	for (long i = 0; i < n; i++) {
		sink = malloc(s);
		if (i < n / 2)
			free(sink);
	}
	printf("sample_margins %ld %zu\n", n, s);
	return 0;
}
