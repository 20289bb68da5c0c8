/*
 * lead_then_run.c - a parent that leaves records unread in its ring while
 * the programs it starts run (tests/e2e/neighbour-sizes.sh).
 *
 * usage: lead_then_run N PROG [ARGS...]
 * N times: 5,000 allocations of 32 bytes, each freed at once (lead_block:
 * some 50 KB of the recorder's records, below the quarter ring that makes
 * the launcher take them, so they wait for its next sweep, up to 100 ms
 * later), then runs PROG ARGS and waits for it.
 *
 * Expected facts: lead_block: 5000 * N allocations, 160000 * N bytes,
 * 0 live at exit.  Exit status 0 when every PROG exited 0, else 1.
 */
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

#define LEAD_BLOCKS 5000

extern char **environ;

__attribute__((noinline)) static void *lead_block(void)
{
	return malloc(32);
}

static void lead(void)
{
	for (int i = 0; i < LEAD_BLOCKS; i++) {
		void *volatile p = lead_block();

		free(p);
	}
}

int main(int argc, char **argv)
{
	int n, status;
	pid_t pid;

	if (argc < 3 || (n = atoi(argv[1])) < 1) {
		fprintf(stderr, "usage: lead_then_run N PROG [ARGS...]\n");
		return 2;
	}
	for (int k = 0; k < n; k++) {
		lead();
		if (posix_spawn(&pid, argv[2], NULL, NULL, argv + 2, environ) != 0 ||
		    waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		    WEXITSTATUS(status) != 0)
			return 1;
	}
	return 0;
}
