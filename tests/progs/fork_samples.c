/*
 * tests/progs/fork_samples.c - one thread forks N children one after the
 * other, allocating nothing between the forks; each child allocates one
 * block of SIZE bytes, keeps it and exits (tests/e2e/fork-samples.sh).
 *
 * usage: fork_samples N SIZE
 * The forking thread first allocates one byte of its own (so that it has a
 * countdown to its next sample when it forks).  Prints "children N" when
 * every child exited with status 0.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile void *kept;

int main(int argc, char **argv)
{
	int n = argc > 2 ? atoi(argv[1]) : 0, ok = 0;
	size_t size = argc > 2 ? (size_t)atol(argv[2]) : 0;

	if (n <= 0 || size == 0) {
		fprintf(stderr, "usage: fork_samples N SIZE\n");
		return 2;
	}
	kept = malloc(1);
	for (int i = 0; i < n; i++) {
		int status;
		pid_t pid = fork();

		if (pid == 0) {
			kept = malloc(size);
			_exit(kept ? 0 : 1);
		}
		if (pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
		    WEXITSTATUS(status) == 0)
			ok++;
	}
	printf("children %d\n", ok);
	return ok == n ? 0 : 1;
}
