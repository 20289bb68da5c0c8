/*
 * trace_sizes.c - a run of many small traces, or one large trace, for the
 * analyzer's choice of reading a trace on one thread or three.
 *   trace_sizes children N  N fork children, one after another, each
 *                           allocating 100 bytes (kept) and exiting with
 *                           status 0; the parent allocates nothing itself.
 *   trace_sizes churn N     N allocations of 16..1039 bytes (xorshift
 *                           sizes, so the trace compresses little) through
 *                           a ring of 4096 blocks, each freeing the block
 *                           it replaces; the 4096 last ones stay live.
 * Prints nothing: stdio's buffer would be one more allocation.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define RING 4096

static void *ring[RING];
static void *volatile kept;

static int children(long n)
{
	for (long k = 0; k < n; k++) {
		pid_t pid = fork();
		int st;

		if (pid < 0)
			return 1;
		if (pid == 0) {
			kept = malloc(100);
			_exit(0);
		}
		if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
			return 2;
	}
	return 0;
}

static int churn(long n)
{
	unsigned long x = 88172645463325252ul;

	for (long i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		free(ring[i % RING]);
		ring[i % RING] = malloc(16 + x % 1024);
		if (!ring[i % RING])
			return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	long n = argc > 2 ? atol(argv[2]) : 0;

	if (argc > 2 && strcmp(argv[1], "children") == 0)
		return children(n);
	if (argc > 2 && strcmp(argv[1], "churn") == 0)
		return churn(n);
	return 64;
}
