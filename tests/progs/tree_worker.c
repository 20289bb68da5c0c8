/*
 * tree_worker.c - the real program that a wrapper script starts, for the
 * table of processes of `mprof run` and `mprof report --all`
 * (tests/e2e/process-tree.sh).
 *
 * Usage: tree_worker N [SIZE]
 * Expected facts: exactly N allocations (N malloc(SIZE), SIZE 32 unless
 * given, every other one freed: N/2 frees, N - N/2 blocks leaked), nothing
 * else; no stdio, whose buffer would be one more allocation.
 */
#include <stdlib.h>

static void *volatile sink;

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 0;
	size_t size = argc > 2 ? (size_t)atol(argv[2]) : 32;

	for (int i = 0; i < n; i++) {
		void *p = malloc(size);

		sink = p;
		if (i % 2)
			free(p);
	}
	return 0;
}
