/*
 * fork_pool.c - a pre-fork server's shape: a parent with many live blocks
 * forks workers one after another, each freeing some of the blocks it
 * inherited and allocating its own (tests/e2e/fork-pool.sh, and the
 * figures of bench/HISTORY.md "Session 40").
 *
 * Usage: fork_pool N K   (2 K + 2 <= N <= 2^20)
 *   parent_keep: N x malloc(32), kept.
 *   Then for worker k = 0 .. K-1 the parent runs parent_step(k) (frees
 *   keep[N-1-k], keeps a new block of 1000 + k bytes) and forks; so worker
 *   k inherits N blocks: N-k-1 of 32 B and k+1 of 1000..1000+k B.
 *   Worker k frees keep[0..k] and its newest step block (k+2 frees of
 *   inherited blocks, none unmatched), allocates k+1 x malloc(100) in
 *   worker_leak (never freed) and calls _exit(0).  The parent waits for it
 *   before the next fork, so worker k's pid follows worker k-1's.
 *   At the end the parent frees keep[0 .. N-K-1] (the K step blocks stay:
 *   its leaks).
 * Prints nothing (stdio's buffer would be one more allocation).  Exit
 * status 0; 1 on bad arguments or a failed allocation, 2 when a fork or a
 * worker failed.
 */
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#define KEEP_MAX (1l << 20)

static void *keep[KEEP_MAX]; /* static: no block of the parent's but its N and K */
static void *volatile leak;

__attribute__((noinline)) static int parent_keep(long n)
{
	for (long i = 0; i < n; i++)
		if (!(keep[i] = malloc(32)))
			return 1;
	return 0;
}

__attribute__((noinline)) static void *parent_step(long n, long k)
{
	free(keep[n - 1 - k]);
	return malloc(1000 + (size_t)k);
}

__attribute__((noinline)) static void worker_leak(long k)
{
	for (long i = 0; i <= k; i++)
		leak = malloc(100);
}

static void worker(long k, void *step)
{
	for (long i = 0; i <= k; i++)
		free(keep[i]);
	free(step);
	worker_leak(k);
	_exit(0);
}

int main(int argc, char **argv)
{
	long n = argc > 2 ? atol(argv[1]) : 0, k_count = argc > 2 ? atol(argv[2]) : 0;

	if (k_count < 1 || n < 2 * k_count + 2 || n > KEEP_MAX || parent_keep(n))
		return 1;
	for (long k = 0; k < k_count; k++) {
		void *step = parent_step(n, k);
		pid_t pid;
		int st;

		if (!step)
			return 1;
		pid = fork();
		if (pid < 0)
			return 2;
		if (pid == 0)
			worker(k, step);
		if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
			return 2;
	}
	for (long i = 0; i < n - k_count; i++)
		free(keep[i]);
	return 0;
}
