/*
 * fork_execs.c - forks N children one after another; each allocates and
 * frees one 100-byte block, then executes PROGRAM (no arguments), and the
 * parent waits for it before the next fork.
 *
 * Usage: fork_execs N PROGRAM.  Facts: the parent makes no allocation of
 * its own; each child's first image makes 1 (100 B, freed) and executes;
 * exit 0 (a child that cannot execute exits 127, which is not looked at).
 */
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int n = argc > 2 ? atoi(argv[1]) : 0;

	for (int i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid == 0) {
			void *volatile p = malloc(100);

			free(p);
			execl(argv[2], argv[2], (char *)NULL);
			_exit(127);
		}
		if (pid < 0)
			return 1;
		waitpid(pid, NULL, 0);
	}
	return 0;
}
