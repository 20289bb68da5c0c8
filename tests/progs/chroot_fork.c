/*
 * chroot_fork.c - a program that changes its root directory (to argv[1],
 * an empty directory) and then forks a worker, as sandboxing daemons do:
 * the worker's recorder cannot find mprof's session directory there, so it
 * runs unrecorded and mprof says why.  With argv[1] "--proc-of-ended" the
 * root is that of Chromium's sandbox (sandbox/linux/services/
 * credentials.cc): a child sharing the program's filesystem context
 * (CLONE_FS) chroots to /proc/self/fdinfo and ends, so that every path the
 * program walks afterwards fails with ESRCH.
 *
 * Facts: the program makes 2 allocations of 24 B before chroot, freed; the
 * worker makes 4 of 100 B and exits 0; the program prints "worker status 0"
 * and exits 0.  Exit 77 when chroot is refused (not root).
 */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void churn(size_t size, int n)
{
	for (int i = 0; i < n; i++) {
		void *volatile p = malloc(size);
		free(p);
	}
}

/* The child that roots its parent in its own /proc directory. */
static int root_in_own_proc(void *arg)
{
	(void)arg;
	if (chroot("/proc/self/fdinfo/") != 0 || chdir("/") != 0)
		_exit(77);
	_exit(0);
}

/* Changes the root directory to dir, or to /proc/PID/fdinfo of a child
 * that has ended when dir is "--proc-of-ended".  0, or -1 when refused. */
static int change_root(const char *dir)
{
	_Alignas(16) static char stack[64 * 1024];
	int status;
	pid_t pid;

	if (strcmp(dir, "--proc-of-ended") != 0)
		return chroot(dir) == 0 && chdir("/") == 0 ? 0 : -1;
	pid = clone(root_in_own_proc, stack + sizeof(stack), CLONE_VM | CLONE_VFORK | CLONE_FS | SIGCHLD,
		    NULL);
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
	int status;
	pid_t pid;

	if (argc != 2)
		return 2;
	churn(24, 2);
	if (change_root(argv[1]) != 0)
		return 77;
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		churn(100, 4);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid)
		return 1;
	printf("worker status %d\n", WEXITSTATUS(status));
	return 0;
}
