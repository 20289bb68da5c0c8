/*
 * exec_toggles.c - a program that executes itself again and again while
 * mprof passes toggle signals on (tests/e2e/exec-toggles.sh).
 *
 * exec_toggles DIR N: the first image writes DIR/ready; each image makes
 * 10 blocks of 100 bytes (freed), prints "image N", runs a fork child that
 * executes `exec_toggles DIR child` and checks it ended with status 0,
 * then, while N > 0, executes `exec_toggles DIR N-1`: by turns directly
 * and through `/bin/sh -c 'exec "$0" "$@"'`.  Image 0 prints "done" and
 * ends with status 0.  "exec_toggles DIR child" makes its blocks and ends
 * with status 0, printing nothing.
 *
 * exec_toggles DIR enoent: writes DIR/ready, executes DIR/missing (which
 * fails with ENOENT), writes DIR/failed, then calls after_fail() (a block
 * of 50 bytes, freed) every millisecond until recording runs, up to 60 s;
 * then makes 10 blocks of 300 bytes in recorded_window(), freed, and
 * prints "enoent running".  Facts: one toggle sent to a --paused run after
 * DIR/failed records recorded_window()'s 10 blocks (3000 bytes).
 *
 * exec_toggles DIR static PROG: writes DIR/ready, then executes PROG DIR
 * (tests/progs/static_catcher.c).
 *
 * Any failure prints what and ends with status 2.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mprof.h"

/* Makes and frees the image's 10 blocks of 100 bytes. */
static void blocks(void)
{
	for (int i = 0; i < 10; i++) {
		char *volatile p = malloc(100);

		if (!p)
			exit(2);
		p[0] = 1;
		free(p);
	}
}

static __attribute__((noinline)) void after_fail(void)
{
	char *volatile p = malloc(50);

	free(p);
}

static __attribute__((noinline)) void recorded_window(void)
{
	for (int i = 0; i < 10; i++) {
		char *volatile p = malloc(300);

		free(p);
	}
}

/* Writes file DIR/NAME; 0 or -1. */
static int touch(const char *dir, const char *name)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT, 0644);
	if (fd < 0 || write(fd, "1\n", 2) != 2)
		return -1;
	return close(fd);
}

/* The enoent mode (above). */
static int enoent(const char *dir)
{
	struct timespec ms = { 0, 1000000 };
	char path[4096];

	snprintf(path, sizeof(path), "%s/missing", dir);
	if (touch(dir, "ready") != 0)
		return 2;
	execl(path, path, (char *)NULL);
	if (errno != ENOENT) {
		printf("exec: %s\n", strerror(errno));
		return 2;
	}
	if (touch(dir, "failed") != 0)
		return 2;
	for (int i = 0; i < 60000; i++) {
		after_fail();
		if (mprof_is_running() == 1) {
			recorded_window();
			printf("enoent running\n");
			return 0;
		}
		nanosleep(&ms, NULL);
	}
	printf("never running\n");
	return 2;
}

/* Runs a fork child executing exe DIR child; 0 when it ended with 0. */
static int fork_child(const char *exe, const char *dir)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		execl(exe, exe, dir, "child", (char *)NULL);
		_exit(3);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		printf("child status %#x\n", status);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	char next[16], path[4096];
	const char *exe = "/proc/self/exe";
	long n;

	if (argc == 4 && strcmp(argv[2], "static") == 0) {
		if (touch(argv[1], "ready") != 0)
			return 2;
		execl(argv[3], argv[3], argv[1], (char *)NULL);
		return 2;
	}
	if (argc != 3)
		return 2;
	blocks();
	if (strcmp(argv[2], "child") == 0)
		return 0;
	if (strcmp(argv[2], "enoent") == 0)
		return enoent(argv[1]);
	n = strtol(argv[2], NULL, 10);
	snprintf(path, sizeof(path), "%s/ready", argv[1]);
	if (access(path, F_OK) != 0) {
		int fd = open(path, O_WRONLY | O_CREAT, 0644);

		if (fd < 0 || write(fd, "1\n", 2) != 2)
			return 2;
		close(fd);
	}
	printf("image %ld\n", n);
	fflush(stdout);
	ssize_t len = readlink(exe, path, sizeof(path) - 1);

	if (len <= 0)
		return 2;
	path[len] = '\0';
	if (fork_child(path, argv[1]) != 0)
		return 2;
	if (n == 0) {
		printf("done\n");
		return 0;
	}
	snprintf(next, sizeof(next), "%ld", n - 1);
	if (n % 2)
		execl(path, path, argv[1], next, (char *)NULL);
	else
		execl("/bin/sh", "sh", "-c", "exec \"$0\" \"$@\"", path, argv[1], next,
		      (char *)NULL);
	printf("exec failed\n");
	return 2;
}
