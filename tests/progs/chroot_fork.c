/*
 * chroot_fork.c - a program that changes its root directory (to argv[1],
 * an empty directory) and then forks a worker, as sandboxing daemons do:
 * the worker's recorder cannot find mprof's session directory there, so it
 * runs unrecorded and mprof says why.
 *
 * Facts: the program makes 2 allocations of 24 B before chroot, freed; the
 * worker makes 4 of 100 B and exits 0; the program prints "worker status 0"
 * and exits 0.  Exit 77 when chroot is refused (not root).
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static void churn(size_t size, int n)
{
	for (int i = 0; i < n; i++) {
		void *volatile p = malloc(size);
		free(p);
	}
}

int main(int argc, char **argv)
{
	int status;
	pid_t pid;

	if (argc != 2)
		return 2;
	churn(24, 2);
	if (chroot(argv[1]) != 0 || chdir("/") != 0)
		return 77;
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		churn(100, 4);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid)
		return 1;
	printf("worker status %d\n", WEXITSTATUS(status));
	return 0;
}
