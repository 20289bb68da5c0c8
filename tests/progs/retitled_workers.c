/*
 * retitled_workers.c - a master that forks workers which give themselves a
 * title after the fork, as nginx's and postgres's do: the title is written
 * over argv[0] in place, the rest of the argument area zeroed, so that
 * /proc/PID/cmdline (and ps) reads "demo: worker N".
 *
 * Run it with one argument at least 20 bytes long, so that the argument
 * area holds a title whatever the program's path.  Workers 0, 1 and 2 each
 * leak N + 1 blocks of 1000 B and call exit(0).  Worker 3 is titled
 * "demo: doomed", leaks 4 blocks of 1000 B, tells the master and waits;
 * the master gives it 3 s (mprof looks at a process's command line 0.1,
 * 0.3 and 0.7 s after it finds it; 1 s left a launcher run late on a loaded
 * host 0.3 s for its last look), then kills it with SIGKILL.  Worker 4
 * calls prctl(PR_SET_NAME, "demo-named") only (its command line stays the
 * master's), leaks 5 blocks of 1000 B and calls exit(0).  The master then
 * takes the title "demo: master", prints "workers: 0 0 0 9 0" (exit
 * statuses, the killed one's signal) and returns 0; its one allocation is
 * stdout's buffer (4096 B, never freed).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define WORKERS 5
#define BLOCK_BYTES 1000

static char *title_area;
static size_t title_bytes;

/* Notes the argument area: argv's strings lie one after the other. */
static void title_init(int argc, char **argv)
{
	title_area = argv[0];
	title_bytes = (size_t)(argv[argc - 1] + strlen(argv[argc - 1]) - argv[0]);
}

/* Writes title over the argument area, cut to fit, the rest zeroed. */
static void title_set(const char *title)
{
	size_t n = strlen(title);

	if (n > title_bytes)
		n = title_bytes;
	memset(title_area, 0, title_bytes);
	memcpy(title_area, title, n);
}

static void leak(int blocks)
{
	for (int i = 0; i < blocks; i++) {
		volatile char *p = malloc(BLOCK_BYTES);

		if (!p)
			exit(1);
		p[0] = 1;
	}
}

static void worker(int n, int ready_fd)
{
	char title[32];

	if (n == 4) {
		prctl(PR_SET_NAME, "demo-named", 0, 0, 0);
		leak(5);
		exit(0);
	}
	if (n == 3) {
		title_set("demo: doomed");
		leak(4);
		if (write(ready_fd, "r", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	snprintf(title, sizeof(title), "demo: worker %d", n);
	title_set(title);
	leak(n + 1);
	exit(0);
}

int main(int argc, char **argv)
{
	struct timespec grace = { 3, 0 };
	pid_t pids[WORKERS];
	int status[WORKERS], ready[2];
	char byte;

	if (argc < 2 || strlen(argv[1]) < 20) {
		fprintf(stderr, "usage: %s PADDING (20 bytes at least)\n", argv[0]);
		return 2;
	}
	title_init(argc, argv);
	if (pipe(ready) != 0)
		return 1;
	for (int n = 0; n < WORKERS; n++) {
		pids[n] = fork();
		if (pids[n] < 0)
			return 1;
		if (pids[n] == 0)
			worker(n, ready[1]);
	}
	if (read(ready[0], &byte, 1) != 1)
		return 1;
	nanosleep(&grace, NULL);
	kill(pids[3], SIGKILL);
	for (int n = 0; n < WORKERS; n++) {
		int st;

		if (waitpid(pids[n], &st, 0) != pids[n])
			return 1;
		status[n] = WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st);
	}
	title_set("demo: master");
	printf("workers: %d %d %d %d %d\n", status[0], status[1], status[2], status[3],
	       status[4]);
	return 0;
}
