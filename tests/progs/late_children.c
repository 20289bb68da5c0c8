/*
 * late_children.c - starts children and ends at once, without waiting for
 * them: 2 by fork, 2 by posix_spawn and 2 by vfork and exec (of this same
 * program with the argument "child").  Each child makes 50 allocations of
 * 24 bytes in child_work, frees them, and ends.  A profiler must still
 * record every child, although the program has ended before they start.
 */
#define _GNU_SOURCE
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

static void *volatile sink[50];

__attribute__((noinline)) static void child_work(void)
{
	for (int i = 0; i < 50; i++)
		sink[i] = malloc(24);
	for (int i = 0; i < 50; i++)
		free(sink[i]);
}

int main(int argc, char **argv)
{
	char *child_argv[] = { argv[0], (char *)"child", NULL };

	if (argc > 1 && strcmp(argv[1], "child") == 0) {
		child_work();
		return 0;
	}
	for (int i = 0; i < 2; i++) {
		pid_t pid;

		if (fork() == 0) {
			child_work();
			_exit(0);
		}
		if (posix_spawn(&pid, argv[0], NULL, NULL, child_argv, environ) != 0)
			return 1;
		if (vfork() == 0) {
			execve(argv[0], child_argv, environ);
			_exit(127);
		}
	}
	printf("started 6 children\n");
	return 0;
}
