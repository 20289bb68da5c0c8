/*
 * diff_lines.c - a program whose allocating lines move between two builds,
 * for tests of how `mprof diff` names a frame merged from several lines
 * (tests/e2e/diff-lines.sh).  The test builds A from this file and B from a
 * copy in another folder with three lines inserted at the top of parse
 * (after its marker line), so every line below is three lines further down
 * in B.
 *
 * Facts (argument N; A runs with 10, B with 30):
 *   steady: N blocks of 32 B, freed, from STEADY_LINE (above the insertion:
 *           the same line in A and B), called from main at MAIN_STEADY
 *   parse:  N blocks of 100 B at PARSE_LOOP and one of 7 B at PARSE_TAIL,
 *           freed: two sites in each trace that differ only in that line,
 *           called from main at MAIN_PARSE
 * stdout: "diff_lines N"
 */
#include <stdio.h>
#include <stdlib.h>

static void *volatile keep;

__attribute__((noinline)) static void steady(int n)
{
	for (int i = 0; i < n; i++) {
		keep = malloc(32); /* STEADY_LINE */
		free(keep);
	}
}

__attribute__((noinline)) static void parse(int n)
{
	/* INSERT_B */
	for (int i = 0; i < n; i++) {
		keep = malloc(100); /* PARSE_LOOP */
		free(keep);
	}
	keep = malloc(7); /* PARSE_TAIL */
	free(keep);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10;

	steady(n); /* MAIN_STEADY */
	parse(n); /* MAIN_PARSE */
	printf("diff_lines %d\n", n);
	return 0;
}
