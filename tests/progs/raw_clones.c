/*
 * tests/progs/raw_clones.c - children made by fork-like system calls through
 * syscall(), which run no fork handlers, for what mprof records of them
 * (tests/e2e/raw-clones.sh).
 *
 * Usage: raw_clones
 * Makes four children, one at a time, each reaped by waitpid before the
 * next; each leaves N blocks of 1000 B live in keep_blocks() and calls
 * exit(N):
 *   fork      N = 3, syscall(SYS_fork);
 *   clone     N = 4, syscall(SYS_clone, SIGCHLD, 0, ...);
 *   clone3    N = 5, syscall(SYS_clone3) with flags 0, exit_signal SIGCHLD;
 *   threaded  N = 6, syscall(SYS_fork) while a second thread waits on a
 *             pipe (the process has two threads);
 *   stack     N = 7, the C library's clone(fn, stack, SIGCHLD, NULL): fn
 *             runs on a stack of the program's.
 * Prints one line per child, "WAY exit S" as waitpid returned it (a call
 * that failed prints "WAY failed ERRNO-NAME"), then "done".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/sched.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static void *volatile keep;

__attribute__((noinline)) static void keep_blocks(int n)
{
	for (int i = 0; i < n; i++)
		keep = malloc(1000);
}

static int stack_child(void *arg)
{
	keep_blocks(7);
	exit(arg ? 1 : 7);
}

static long make_child(const char *way)
{
	static char stack[1 << 16] __attribute__((aligned(16)));

	if (strcmp(way, "stack") == 0)
		return clone(stack_child, stack + sizeof(stack), SIGCHLD, NULL);
	if (strcmp(way, "clone") == 0)
		return syscall(SYS_clone, (long)SIGCHLD, 0L, 0L, 0L, 0L);
	if (strcmp(way, "clone3") == 0) {
		struct clone_args ca;

		memset(&ca, 0, sizeof(ca));
		ca.exit_signal = SIGCHLD;
		return syscall(SYS_clone3, &ca, sizeof(ca));
	}
	return syscall(SYS_fork);
}

/* Makes one child by way, which leaves n blocks and exits with n. */
static void child_run(const char *way, int n)
{
	long pid = make_child(way);
	int st = 0;

	if (pid < 0) {
		printf("%s failed %s\n", way, strerrorname_np(errno));
		return;
	}
	if (pid == 0) {
		keep_blocks(n);
		exit(n);
	}
	if (waitpid((pid_t)pid, &st, 0) != pid || !WIFEXITED(st))
		printf("%s wait failed\n", way);
	else
		printf("%s exit %d\n", way, WEXITSTATUS(st));
	fflush(stdout);
}

static int hold[2];

static void *thread_wait(void *arg)
{
	char c;

	(void)arg;
	return read(hold[0], &c, 1) == 1 ? NULL : arg;
}

int main(void)
{
	pthread_t t;

	setvbuf(stdout, NULL, _IONBF, 0);
	child_run("fork", 3);
	child_run("clone", 4);
	child_run("clone3", 5);
	if (pipe(hold) != 0 || pthread_create(&t, NULL, thread_wait, NULL) != 0)
		return 2;
	child_run("threaded", 6);
	if (write(hold[1], "x", 1) != 1 || pthread_join(t, NULL) != 0)
		return 2;
	child_run("stack", 7);
	printf("done\n");
	return 0;
}
