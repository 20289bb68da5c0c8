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
 * with status 0, printing nothing.  Any failure prints what and ends
 * with status 2.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

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

	if (argc != 3)
		return 2;
	blocks();
	if (strcmp(argv[2], "child") == 0)
		return 0;
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
