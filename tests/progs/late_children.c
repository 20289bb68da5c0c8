/*
 * late_children.c - starts children and ends at once, without waiting for
 * them: 2 by fork, 2 by posix_spawn and 2 by vfork and exec (of this same
 * program with the argument "child").  Each child makes 50 allocations of
 * 24 bytes in child_work, frees them, and ends.  A profiler must still
 * record every child, although the program has ended before they start.
 *
 * Two more children cannot be recorded, and a profiler must say so: one
 * executed ("linger") with LD_PRELOAD taken out of its environment, which
 * lives on for a second, and one posix_spawned and at once stopped with
 * SIGSTOP (mostly before its recorder could start; whoever runs this sends
 * it SIGCONT or SIGKILL).  The last line of stdout names the children as
 * KIND:PID.
 */
#define _GNU_SOURCE
#include <signal.h>
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

/* A copy of environ without LD_PRELOAD (static, made before a vfork). */
static char **env_without_preload(void)
{
	static char *env[4096];
	size_t n = 0;

	for (char **e = environ; *e && n + 1 < sizeof(env) / sizeof(env[0]); e++)
		if (strncmp(*e, "LD_PRELOAD=", 11) != 0)
			env[n++] = *e;
	env[n] = NULL;
	return env;
}

int main(int argc, char **argv)
{
	char *child_argv[] = { argv[0], (char *)"child", NULL };
	char *linger_argv[] = { argv[0], (char *)"linger", NULL };
	char **bare_env = env_without_preload();
	char names[512];
	static size_t len; /* static: a local may be clobbered across vfork */
	pid_t pid;

	if (argc > 1 && strcmp(argv[1], "child") == 0) {
		child_work();
		return 0;
	}
	if (argc > 1 && strcmp(argv[1], "linger") == 0) {
		child_work();
		sleep(1);
		return 0;
	}
	for (int i = 0; i < 2; i++) {
		if ((pid = fork()) == 0) {
			child_work();
			_exit(0);
		}
		len += (size_t)snprintf(names + len, sizeof(names) - len, "fork:%d ", (int)pid);
		if (posix_spawn(&pid, argv[0], NULL, NULL, child_argv, environ) != 0)
			return 1;
		len += (size_t)snprintf(names + len, sizeof(names) - len, "spawn:%d ", (int)pid);
		if ((pid = vfork()) == 0) {
			execve(argv[0], child_argv, environ);
			_exit(127);
		}
		len += (size_t)snprintf(names + len, sizeof(names) - len, "vfork:%d ", (int)pid);
	}
	if ((pid = vfork()) == 0) {
		execve(argv[0], linger_argv, bare_env);
		_exit(127);
	}
	len += (size_t)snprintf(names + len, sizeof(names) - len, "unrecordable:%d ", (int)pid);
	if (posix_spawn(&pid, argv[0], NULL, NULL, child_argv, environ) != 0)
		return 1;
	kill(pid, SIGSTOP);
	snprintf(names + len, sizeof(names) - len, "stopped:%d", (int)pid);
	printf("started 8 children\n%s\n", names);
	return 0;
}
