/*
 * fd_limit_children.c - a parent whose N children are all alive at once
 * (each has made its first allocation, in child_ready, and said so), then
 * each makes K allocations of 100 bytes in child_blocks (freed at once)
 * and exits with status 7.  Under a low
 * descriptor limit (ulimit -n), which mprof run's launcher shares, the
 * launcher cannot hold a descriptor for every process
 * (tests/e2e/fd-limit.sh).
 *
 * Usage: fd_limit_children N K.  Prints "children: N, exited 7: M".
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

__attribute__((noinline)) static void child_ready(int fd)
{
	void *volatile p = malloc(100);

	free(p);
	if (write(fd, "r", 1) != 1)
		_exit(5);
}

__attribute__((noinline)) static void child_blocks(long k)
{
	for (long i = 0; i < k; i++) {
		void *volatile p = malloc(100);

		free(p);
	}
}

int main(int argc, char **argv)
{
	int n = argc > 2 ? atoi(argv[1]) : 0, go[2], ready[2], status, exited7 = 0;
	long k = argc > 2 ? atol(argv[2]) : 0;
	char c;

	if (n <= 0 || k < 0 || pipe(go) != 0 || pipe(ready) != 0)
		return 2;
	for (int i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid < 0)
			return 3;
		if (pid == 0) {
			close(go[1]);
			close(ready[0]);
			child_ready(ready[1]);
			/* every child lives until the parent closes the pipe */
			if (read(go[0], &c, 1) != 0)
				_exit(4);
			child_blocks(k);
			_exit(7);
		}
	}
	close(go[0]);
	close(ready[1]);
	for (int i = 0; i < n; i++)
		if (read(ready[0], &c, 1) != 1)
			return 6;
	close(go[1]);
	while (wait(&status) > 0)
		exited7 += WIFEXITED(status) && WEXITSTATUS(status) == 7;
	printf("children: %d, exited 7: %d\n", n, exited7);
	return 0;
}
