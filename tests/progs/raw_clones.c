/*
 * tests/progs/raw_clones.c - children made by fork-like system calls through
 * syscall(), which run no fork handlers, for what mprof records of them
 * (tests/e2e/raw-clones.sh).
 *
 * Usage: raw_clones [sandboxed]
 * Makes five children, one at a time, each reaped by waitpid before the
 * next; each leaves N blocks of 1000 B live in keep_blocks() and calls
 * exit(N):
 *   fork      N = 3, syscall(SYS_fork);
 *   clone     N = 4, syscall(SYS_clone, SIGCHLD, 0, ...);
 *   clone3    N = 5, syscall(SYS_clone3) with flags 0, exit_signal SIGCHLD;
 *   threaded  N = 6, syscall(SYS_fork) while a second thread waits on a
 *             pipe (the process has two threads);
 *   stack     N = 7, the C library's clone(fn, stack, SIGCHLD, NULL): fn
 *             runs on a stack of the program's.
 * Then calls syscall(SYS_clone3, (void *)1, 88), an address the kernel
 * refuses.  Prints one line per child, "WAY exit S" as waitpid returned it
 * (a call that failed prints "WAY failed ERRNO-NAME"), then "clone3 bad
 * pointer: R ERRNO-NAME" (what that call returned), then "done".
 * With "sandboxed" it first installs a seccomp filter that allows every
 * system call (a sandbox as the recorder sees it), then makes only the fork
 * child (N = 3) and the clone3 child (N = 5) and calls the bad clone3; "no
 * filter" when it cannot.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/filter.h>
#include <linux/sched.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
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

/* Calls clone3 with an address the kernel refuses and prints what it
 * returned. */
static void clone3_bad_pointer(void)
{
	long rc = syscall(SYS_clone3, (void *)1, 88L);

	printf("clone3 bad pointer: %ld %s\n", rc, rc < 0 ? strerrorname_np(errno) : "-");
	if (rc == 0)
		_exit(0);
}

/* Installs a seccomp filter that allows every system call: 0, or -1. */
static int filter_install(void)
{
	struct sock_filter allow[] = { BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW) };
	struct sock_fprog prog = { 1, allow };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

int main(int argc, char **argv)
{
	pthread_t t;

	setvbuf(stdout, NULL, _IONBF, 0);
	if (argc > 1 && strcmp(argv[1], "sandboxed") == 0) {
		if (filter_install() != 0) {
			printf("no filter\n");
			return 0;
		}
		child_run("fork", 3);
		child_run("clone3", 5);
		clone3_bad_pointer();
		printf("done\n");
		return 0;
	}
	child_run("fork", 3);
	child_run("clone", 4);
	child_run("clone3", 5);
	if (pipe(hold) != 0 || pthread_create(&t, NULL, thread_wait, NULL) != 0)
		return 2;
	child_run("threaded", 6);
	if (write(hold[1], "x", 1) != 1 || pthread_join(t, NULL) != 0)
		return 2;
	child_run("stack", 7);
	clone3_bad_pointer();
	printf("done\n");
	return 0;
}
