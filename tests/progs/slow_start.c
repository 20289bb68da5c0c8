/*
 * slow_start.c - starts one child, by vfork and exec of this same program,
 * whose recorder is slow to start: the child's environment has
 * MPROF_TEST_START_DELAY_MS=DELAY added (the recorder then sleeps DELAY ms
 * between creating its process file and marking it running).  The child
 * makes 50 allocations of 24 bytes in child_work, frees them, and ends.
 *
 * Usage: slow_start wait|nowait DELAY.  "wait": the program waits for the
 * child; "nowait": it ends at once.  The last line of stdout is the
 * child's pid.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
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
	static char *env[4096];
	static char delay[64];
	char *child_argv[] = { argv[0], (char *)"child", NULL };
	size_t n = 0;
	pid_t pid;
	int status;

	if (argc == 2 && strcmp(argv[1], "child") == 0) {
		child_work();
		return 0;
	}
	if (argc != 3 || (strcmp(argv[1], "wait") != 0 && strcmp(argv[1], "nowait") != 0)) {
		fprintf(stderr, "usage: slow_start wait|nowait DELAY\n");
		return 2;
	}
	snprintf(delay, sizeof(delay), "MPROF_TEST_START_DELAY_MS=%s", argv[2]);
	for (char **e = environ; *e && n + 2 < sizeof(env) / sizeof(env[0]); e++)
		env[n++] = *e;
	env[n++] = delay;
	env[n] = NULL;
	if ((pid = vfork()) == 0) {
		execve(argv[0], child_argv, env);
		_exit(127);
	}
	if (pid < 0)
		return 1;
	printf("%d\n", (int)pid);
	fflush(stdout);
	if (strcmp(argv[1], "wait") == 0 &&
	    (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0))
		return 1;
	return 0;
}
