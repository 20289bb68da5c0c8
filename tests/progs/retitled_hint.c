/*
 * retitled_hint.c - processes that give themselves a title with spaces, as
 * postgres's backends ("postgres: user db [local] idle") and nginx's workers
 * ("nginx: worker process") do, for the names in mprof run's closing
 * messages (tests/e2e/hint-retitled.sh).
 *
 * Usage: retitled_hint MODE PADDING (PADDING 20 bytes at least: room for the
 * titles, written over argv in place, the rest of the argument area zeroed)
 *   fork: a child titled "demo: busy worker" makes 3000 allocations (malloc
 *         of 32 B, every other one freed) and calls exit(0); the master
 *         waits for it, makes none and returns 0.
 *   kill: the process titles itself "demo: doomed", makes 10 allocations
 *         (none freed), sleeps 3 s (mprof looks at a process's command line
 *         0.1, 0.3 and 0.7 s after it finds it; retitled_workers.c says
 *         why 3 s) and kills itself with SIGTERM.
 * No stdio, whose buffer would be one more allocation.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void *volatile sink;

/* Writes title over the argument area (argv's strings lie one after the
 * other), cut to fit, the rest zeroed. */
static void title_set(int argc, char **argv, const char *title)
{
	size_t bytes = (size_t)(argv[argc - 1] + strlen(argv[argc - 1]) - argv[0]);
	size_t n = strlen(title);

	if (n > bytes)
		n = bytes;
	memset(argv[0], 0, bytes);
	memcpy(argv[0], title, n);
}

static void allocate(int n, int free_every_other)
{
	for (int i = 0; i < n; i++) {
		void *p = malloc(32);

		if (!p)
			_exit(1);
		sink = p;
		if (free_every_other && i % 2)
			free(p);
	}
}

int main(int argc, char **argv)
{
	struct timespec grace = { 3, 0 };
	int status;
	pid_t pid;

	if (argc != 3 || strlen(argv[2]) < 20)
		return 2;
	if (!strcmp(argv[1], "kill")) {
		title_set(argc, argv, "demo: doomed");
		allocate(10, 0);
		nanosleep(&grace, NULL);
		raise(SIGTERM);
		return 1;
	}
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		title_set(argc, argv, "demo: busy worker");
		allocate(3000, 1);
		exit(0);
	}
	if (waitpid(pid, &status, 0) != pid)
		return 1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
