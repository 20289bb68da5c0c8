/*
 * tests/progs/sample_seeds.c - the seeds and rates of sampling across the
 * processes of a run and across mprof_start calls (tests/e2e/sample-seeds.sh).
 *
 * Usage and facts:
 *   sample_seeds work
 *     4000 x malloc(1000) (site seed_work), each freed at once; prints
 *     nothing.
 *   sample_seeds execs N
 *     forks N children in turn, each executing "sample_seeds work", and
 *     waits for each; stdout "execs N".
 *   sample_seeds forks N
 *     forks N children in turn, each running seed_work itself (no exec),
 *     and waits for each; stdout "forks N".
 *   sample_seeds rates
 *     under mprof_start(4096), then 65536, then 1048576: 1000 x malloc(1000)
 *     at each rate (site seed_rate_work); then mprof_start with 2^30 + 1
 *     (just past MPROF_RATE_MAX), 2^32 (the first rate whose weights do
 *     not fit 32 bits), 2^62 - 1 and 2^62; stdout "start 4096: 0" and so
 *     on, one line per call, with what it returned.
 *   sample_seeds toggles N
 *     N times: mprof_stop(), mprof_marker("m"), mprof_start(MPROF_RATE_RUN);
 *     then mprof_marker("") and mprof_marker("last"); between marker
 *     N - 1 and N (counted from 1) one malloc(777), leaked; stdout
 *     "toggles N" and the return of the empty marker ("empty: -22":
 *     refused, not recorded).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mprof.h"

#define NOINLINE __attribute__((noinline))

static void *volatile sink;

NOINLINE static void seed_work(void)
{
	for (int i = 0; i < 4000; i++) {
		sink = malloc(1000);
		free(sink);
	}
}

NOINLINE static void seed_rate_work(void)
{
	for (int i = 0; i < 1000; i++) {
		sink = malloc(1000);
		free(sink);
	}
}

NOINLINE static void seed_kept(void)
{
	sink = malloc(777);
}

static int children(const char *self, int n, int exec)
{
	for (int i = 0; i < n; i++) {
		int status;
		pid_t pid = fork();

		if (pid < 0)
			return 1;
		if (pid == 0) {
			if (exec) {
				execl(self, self, "work", (char *)NULL);
				_exit(127);
			}
			seed_work();
			_exit(0);
		}
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		    WEXITSTATUS(status) != 0)
			return 1;
	}
	printf("%s %d\n", exec ? "execs" : "forks", n);
	return 0;
}

static void start(const char *what, uint64_t rate)
{
	printf("start %s: %d\n", what, mprof_start(rate));
}

int main(int argc, char **argv)
{
	int n = argc > 2 ? atoi(argv[2]) : 0;

	if (argc > 1 && strcmp(argv[1], "work") == 0) {
		seed_work();
		return 0;
	}
	if (argc > 2 && strcmp(argv[1], "execs") == 0)
		return children(argv[0], n, 1);
	if (argc > 2 && strcmp(argv[1], "forks") == 0)
		return children(argv[0], n, 0);
	if (argc > 1 && strcmp(argv[1], "rates") == 0) {
		start("4096", 4096);
		seed_rate_work();
		start("65536", 65536);
		seed_rate_work();
		start("1048576", 1048576);
		seed_rate_work();
		start("2^30+1", (UINT64_C(1) << 30) + 1);
		start("2^32", UINT64_C(1) << 32);
		start("2^62-1", (UINT64_C(1) << 62) - 1);
		start("2^62", UINT64_C(1) << 62);
		return 0;
	}
	if (argc > 2 && strcmp(argv[1], "toggles") == 0) {
		for (int i = 1; i <= n; i++) {
			mprof_stop();
			mprof_marker("m");
			mprof_start(MPROF_RATE_RUN);
			if (i == n - 1)
				seed_kept();
		}
		printf("toggles %d\nempty: %d\n", n, mprof_marker(""));
		mprof_marker("last");
		return 0;
	}
	fputs("usage: sample_seeds work | execs N | forks N | rates | toggles N\n", stderr);
	return 2;
}
