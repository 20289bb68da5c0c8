/*
 * bench/exec_ns.c - what the exec and posix_spawn wrappers cost a program
 * that starts many processes (a build system): prints ns per call, the
 * median of ROUNDS rounds of N calls each: wall-clock time, then the
 * calling process's CPU time (user and system; a loaded host's waits for
 * a CPU are not in it, nor a spawned child's own time).
 *
 * usage: exec_ns MODE N ROUNDS
 *   fail:       execve("/nonexistent/exec_ns", ...) with environ (ENOENT)
 *   raw-fail:   the same by syscall(SYS_execve, ...)
 *   spawn-fail: posix_spawn of the same path
 *   spawn:      posix_spawn("/bin/true") and its waitpid
 *   exec:       the image executes itself N times (ROUNDS ignored: 1)
 */
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static long long clock_ns(clockid_t clock)
{
	struct timespec t;

	clock_gettime(clock, &t);
	return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static long long now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

/* One round of n calls of mode: wall-clock and CPU ns per call. */
static void round_ns(const char *mode, int n, long long *wall, long long *cpu)
{
	char *argv[] = { "true", NULL };
	long long start = now_ns(), start_cpu = clock_ns(CLOCK_PROCESS_CPUTIME_ID);

	for (int i = 0; i < n; i++) {
		pid_t pid;
		int rc;

		if (strcmp(mode, "fail") == 0) {
			execve("/nonexistent/exec_ns", argv, environ);
		} else if (strcmp(mode, "raw-fail") == 0) {
			syscall(SYS_execve, "/nonexistent/exec_ns", argv, environ);
		} else if (strcmp(mode, "spawn-fail") == 0) {
			posix_spawn(&pid, "/nonexistent/exec_ns", NULL, NULL, argv, environ);
		} else {
			rc = posix_spawn(&pid, "/bin/true", NULL, NULL, argv, environ);
			if (rc == 0)
				waitpid(pid, NULL, 0);
		}
	}
	*wall = (now_ns() - start) / n;
	*cpu = (clock_ns(CLOCK_PROCESS_CPUTIME_ID) - start_cpu) / n;
}

int main(int argc, char **argv)
{
	long long walls[64], cpus[64];
	int n, rounds;

	if (argc >= 7 && strcmp(argv[1], "exec") == 0) {
		/* exec_ns exec N ROUNDS LEFT START_NS START_CPU_NS */
		int left = atoi(argv[4]);
		char buf[32];

		if (left > 0) {
			snprintf(buf, sizeof(buf), "%d", left - 1);
			argv[4] = buf;
			execv("/proc/self/exe", argv);
			return 3;
		}
		printf("%lld %lld\n", (now_ns() - atoll(argv[5])) / atoi(argv[2]),
		       (clock_ns(CLOCK_PROCESS_CPUTIME_ID) - atoll(argv[6])) / atoi(argv[2]));
		return 0;
	}
	if (argc != 4 || (n = atoi(argv[2])) <= 0 || (rounds = atoi(argv[3])) <= 0 || rounds > 64) {
		fprintf(stderr, "usage: exec_ns fail|raw-fail|spawn-fail|spawn|exec N ROUNDS\n");
		return 2;
	}
	if (strcmp(argv[1], "exec") == 0) {
		char start[32], start_cpu[32];

		snprintf(start, sizeof(start), "%lld", now_ns());
		snprintf(start_cpu, sizeof(start_cpu), "%lld", clock_ns(CLOCK_PROCESS_CPUTIME_ID));
		execl("/proc/self/exe", argv[0], "exec", argv[2], "1", argv[2], start, start_cpu,
		      (char *)NULL);
		return 3;
	}
	for (int r = 0; r < rounds; r++)
		round_ns(argv[1], n, &walls[r], &cpus[r]);
	qsort(walls, (size_t)rounds, sizeof(walls[0]), cmp_ll);
	qsort(cpus, (size_t)rounds, sizeof(cpus[0]), cmp_ll);
	printf("%lld %lld\n", walls[rounds / 2], cpus[rounds / 2]);
	return 0;
}
