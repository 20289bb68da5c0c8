/*
 * tests/progs/wait_bad_pointers.c - a child reaped by a call of the wait
 * family given a pointer the kernel cannot write, for what its trace says
 * of how it ended (tests/e2e/wait-bad-pointers.sh).
 *
 * Usage: wait_bad_pointers HOW [DIR]
 * Forks a child that leaves 5 blocks of 1000 B live in keep_blocks() and
 * raises SIGKILL, and reaps it by HOW (with DIR: the parent writes
 * DIR/ready once the child has its blocks, the child raises SIGKILL once
 * DIR/go exists, looking every millisecond for 60 s at most, and the
 * parent writes DIR/done after the call and its line):
 *   status   waitpid(pid, (int *)8, 0)
 *   wait4    wait4(pid, (int *)8, 0, &ru)
 *   usage    wait4(pid, &st, 0, (struct rusage *)8)
 *   info     waitid(P_PID, pid, (siginfo_t *)8, WEXITED)
 * The kernel reaps the child and then fails to write there: the call
 * returns -1 with errno EFAULT.  Prints "R ERRNO" for the call (the errno
 * name, or "0"), then, for usage, the status it wrote ("signal 9"), then
 * "then R ERRNO" for waitpid(pid, &st, WNOHANG) (-1 ECHILD: it was
 * reaped).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void *volatile keep;

__attribute__((noinline)) static void keep_blocks(int n)
{
	for (int i = 0; i < n; i++)
		keep = malloc(1000);
}

/* Makes the file dir/name; a dir of NULL: nothing. */
static void touch(const char *dir, const char *name)
{
	char path[4096];
	FILE *f;

	if (!dir)
		return;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (f)
		fclose(f);
}

/* Waits for dir/go, 60 s at most. */
static void wait_go(const char *dir)
{
	struct timespec ms = { 0, 1000000 };
	char path[4096];

	snprintf(path, sizeof(path), "%s/go", dir);
	for (int i = 0; i < 60000 && access(path, F_OK) != 0; i++)
		nanosleep(&ms, NULL);
}

static const char *errno_name(int r, int err)
{
	if (r >= 0)
		return "0";
	return err == EFAULT ? "EFAULT" : err == ECHILD ? "ECHILD" : strerror(err);
}

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "status";
	const char *dir = argc > 2 ? argv[2] : NULL;
	struct rusage ru;
	int st = 0, r, err, ready[2];
	char byte;
	pid_t pid;

	if (pipe(ready) != 0)
		return 1;
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		keep_blocks(5);
		if (write(ready[1], "r", 1) != 1)
			_exit(98);
		if (dir)
			wait_go(dir);
		raise(SIGKILL);
		_exit(99);
	}
	if (read(ready[0], &byte, 1) != 1)
		return 1;
	touch(dir, "ready");
	errno = 0;
	if (strcmp(how, "status") == 0)
		r = waitpid(pid, (int *)8, 0);
	else if (strcmp(how, "wait4") == 0)
		r = wait4(pid, (int *)8, 0, &ru);
	else if (strcmp(how, "usage") == 0)
		r = wait4(pid, &st, 0, (struct rusage *)8);
	else if (strcmp(how, "info") == 0)
		r = waitid(P_PID, (id_t)pid, (siginfo_t *)8, WEXITED);
	else
		return 1;
	err = errno;
	printf("%d %s\n", r, errno_name(r, err));
	if (strcmp(how, "usage") == 0)
		printf("signal %d\n", WIFSIGNALED(st) ? WTERMSIG(st) : -1);
	fflush(stdout);
	touch(dir, "done");
	errno = 0;
	r = waitpid(pid, &st, WNOHANG);
	printf("then %d %s\n", r, errno_name(r, errno));
	return 0;
}
