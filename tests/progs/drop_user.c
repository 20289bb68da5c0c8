/*
 * drop_user.c - a program that gives up root as a daemon does, then forks
 * a worker: the worker's recorder cannot create its process file in the
 * session directory (it is root's), so it runs unrecorded and mprof says so.
 *
 * Facts: the program makes 2 allocations (16 B, 32 B) before setuid, 3
 * (64 B each) after the fork, all freed, and stdout's buffer; the worker
 * makes 5 (100 B each).
 * It prints "worker N status 0" and exits 0; exit 77 when it cannot change
 * its user (not root).
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

int main(void)
{
	int status;
	pid_t pid;

	churn(16, 1);
	churn(32, 1);
	if (setgid(65534) != 0 || setuid(65534) != 0)
		return 77;
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		churn(100, 5);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid)
		return 1;
	churn(64, 3);
	printf("worker %d status %d\n", (int)pid, WEXITSTATUS(status));
	return 0;
}
