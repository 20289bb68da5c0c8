/*
 * leak_count.c - a program whose leaks depend on its argument, for
 * `mprof diff` tests: the same program run twice with different counts.
 *
 * Usage: leak_count N
 * Expected facts: leak_blocks: N x malloc(1024), live at exit (N / N*1024);
 * churn: 100 malloc/free pairs of 64 bytes (the same in every run).
 * stdout: "leak_count N\n"
 */
#include <stdio.h>
#include <stdlib.h>

static void *volatile keep[64];

__attribute__((noinline)) static void leak_blocks(int n)
{
	for (int i = 0; i < n && i < 64; i++)
		keep[i] = malloc(1024); /* LEAK_LINE */
}

__attribute__((noinline)) static void churn(void)
{
	for (int i = 0; i < 100; i++) {
		void *p = malloc(64);
		keep[63] = p;
		free(p);
	}
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1;

	churn();
	leak_blocks(n);
	printf("leak_count %d\n", n);
	return 0;
}
