/*
 * tests/progs/child_ends.c - fork children that end in the three ways a
 * process can, for what their traces say of it (tests/e2e/child-ends.sh).
 *
 * Usage: child_ends WAIT_MS
 * Forks, in order, each child leaving N blocks of 1000 B live in
 * keep_blocks() and then:
 *   killed   N = 3, raise(SIGKILL);
 *   quick    N = 4, _exit(7);
 *   exits    N = 5, exit(5).
 * The parent sleeps WAIT_MS before waiting for each (the children stay
 * zombies that long), then prints "killed 9 quick 7 exits 5" (the signal
 * and the statuses it saw) and exits 0.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void *volatile keep;

__attribute__((noinline)) static void keep_blocks(int n)
{
	for (int i = 0; i < n; i++)
		keep = malloc(1000);
}

static pid_t child(int how)
{
	pid_t pid = fork();

	if (pid != 0)
		return pid;
	keep_blocks(how + 3);
	if (how == 0)
		raise(SIGKILL);
	if (how == 1)
		_exit(7);
	exit(5);
}

int main(int argc, char **argv)
{
	long ms = argc > 1 ? atol(argv[1]) : 0;
	struct timespec d = { ms / 1000, (ms % 1000) * 1000000L };
	int seen[3];

	for (int how = 0; how < 3; how++) {
		pid_t pid = child(how);
		int status;

		nanosleep(&d, NULL);
		if (pid < 0 || waitpid(pid, &status, 0) != pid)
			return 1;
		seen[how] = WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status);
	}
	printf("killed %d quick %d exits %d\n", seen[0], seen[1], seen[2]);
	return 0;
}
