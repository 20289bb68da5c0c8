/*
 * tests/progs/system_failed.c - a system() call that cannot start its
 * shell, during which another child of the process starts, for whether
 * that child is given the call's status (tests/e2e/system-children.sh).
 *
 * Usage: system_failed
 * Installs a SIGCHLD handler that forks a child once and waits until the
 * child runs (its recorder has started then); the child waits until
 * system() has returned, then calls exit(9).  Then calls system() with a command of 200 KiB, which the kernel
 * refuses to execute (E2BIG: an argument over 128 KiB), so the C library
 * returns the status of an _exit(127) and sets errno, and no shell runs.
 * The SIGCHLD of the C library's failed spawn child, blocked during the
 * call, is delivered when system() restores the signal mask, before it
 * returns: the handler's child starts within the call.  The child is then
 * reaped by a raw wait4 system call (no recorded reap).
 * Prints "system: exit 127 E2BIG" (what system() returned and errno) and
 * "handler child: exit 9" (what wait4 returned); anything else on failure.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define COMMAND_BYTES (200 * 1024)

static volatile pid_t handler_child;
static int ready[2], go[2];

static void on_sigchld(int sig)
{
	int err = errno;
	char c;
	pid_t pid;

	(void)sig;
	if (handler_child)
		return;
	pid = fork();
	if (pid == 0) {
		if (write(ready[1], "r", 1) != 1 || read(go[0], &c, 1) != 1)
			_exit(2);
		exit(9);
	}
	if (pid > 0 && read(ready[0], &c, 1) == 1)
		handler_child = pid;
	errno = err;
}

int main(void)
{
	struct sigaction sa;
	static char command[COMMAND_BYTES + 1];
	int rc, err, st = 0;

	setvbuf(stdout, NULL, _IONBF, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigchld;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (pipe(ready) != 0 || pipe(go) != 0 || sigaction(SIGCHLD, &sa, NULL) != 0)
		return 1;
	memset(command, 'x', COMMAND_BYTES);
	errno = 0;
	rc = system(command);
	err = errno;
	if (rc != -1 && WIFEXITED(rc))
		printf("system: exit %d %s\n", WEXITSTATUS(rc), err ? strerrorname_np(err) : "0");
	else
		printf("system: returned %d\n", rc);
	if (!handler_child || write(go[1], "g", 1) != 1) {
		printf("no handler child\n");
		return 1;
	}
	if (syscall(SYS_wait4, handler_child, &st, 0, NULL) != handler_child || !WIFEXITED(st))
		printf("handler child: wait4 failed\n");
	else
		printf("handler child: exit %d\n", WEXITSTATUS(st));
	return 0;
}
