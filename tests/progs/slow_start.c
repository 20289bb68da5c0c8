/*
 * slow_start.c - starts one child, by vfork and exec of this same program,
 * whose recorder is slow to start: the child's environment has
 * MPROF_TEST_START_DELAY_MS=DELAY added (the recorder then sleeps DELAY ms
 * between creating its process file and marking it running).  The child
 * makes 50 allocations of 24 bytes in child_work, frees them, and ends.
 *
 * Usage: slow_start wait|nowait DELAY [STATEFILE].  "wait": the program
 * waits for the child; "nowait": it ends at once.  The last line of stdout
 * is the child's pid.  With STATEFILE the child, after its allocations,
 * writes there the state of its process file's header as its recorder left
 * it mapped ("state N", enum session_proc_state), or "none" when it has no
 * process file mapped.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "trace/session.h"

extern char **environ;

static void *volatile sink[50];

__attribute__((noinline)) static void child_work(void)
{
	for (int i = 0; i < 50; i++)
		sink[i] = malloc(24);
	for (int i = 0; i < 50; i++)
		free(sink[i]);
}

/* Writes the state of this process's process file ("p.PID." under the
 * session directory, mapped, possibly deleted) to path, or "none". */
static void child_state(const char *path)
{
	const char *dir = getenv(SESSION_ENV);
	char want[4200], line[4400], text[64] = "none\n";
	FILE *f = fopen("/proc/self/maps", "r"), *out;

	snprintf(want, sizeof(want), "%s/p.%d.", dir ? dir : "/nonexistent", (int)getpid());
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long lo, off;
		char *file = strchr(line, '/');

		if (file && sscanf(line, "%lx-%*x %*s %lx", &lo, &off) == 2 && off == 0 &&
		    strncmp(file, want, strlen(want)) == 0) {
			const struct session_proc_header *h = (const void *)lo;

			snprintf(text, sizeof(text), "state %u\n", (unsigned)h->state);
			break;
		}
	}
	if (f)
		fclose(f);
	out = fopen(path, "w");
	if (out) {
		fputs(text, out);
		fclose(out);
	}
}

int main(int argc, char **argv)
{
	static char *env[4096];
	static char delay[64];
	char *child_argv[] = { argv[0], (char *)"child", argc == 4 ? argv[3] : NULL, NULL };
	size_t n = 0;
	pid_t pid;
	int status;

	if ((argc == 2 || argc == 3) && strcmp(argv[1], "child") == 0) {
		child_work();
		if (argc == 3)
			child_state(argv[2]);
		return 0;
	}
	if ((argc != 3 && argc != 4) || (strcmp(argv[1], "wait") != 0 && strcmp(argv[1], "nowait") != 0)) {
		fprintf(stderr, "usage: slow_start wait|nowait DELAY [STATEFILE]\n");
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
