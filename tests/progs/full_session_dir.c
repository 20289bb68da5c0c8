/*
 * full_session_dir.c - a program that fills a file system (argv[1], the
 * tmpfs holding mprof's session directory) and then goes on: a fork child,
 * a new thread and the main thread allocate.  Without mprof it prints
 *   filled: No space left on device
 *   child exited 0
 *   thread made 50000
 *   main made 50000
 * and exits 3.  Its first 10 blocks of 1000 B (in before_fill) are made
 * before the file system is full.  Facts: tests/e2e/full-session-dir.sh.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <stdint.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>

#define BLOCKS 50000
#define FILL_MAX_BYTES (UINT64_C(64) << 20)

void *full_session_dir_keep[10]; /* not static: the blocks stay made */

static __attribute__((noinline)) void before_fill(void)
{
	for (int i = 0; i < 10; i++)
		full_session_dir_keep[i] = malloc(1000);
}

/* Writes a file in dir until the file system is full; the file's path. */
static void fill(const char *dir, char *path, size_t cap)
{
	static char buf[1 << 16];
	struct statfs fs;
	int fd;

	/* never a real disk: only a small tmpfs mounted for the test */
	if (statfs(dir, &fs) != 0 || fs.f_type != TMPFS_MAGIC ||
	    (uint64_t)fs.f_blocks * (uint64_t)fs.f_bsize > FILL_MAX_BYTES) {
		fprintf(stderr, "%s is not a tmpfs of at most 64 MiB\n", dir);
		exit(99);
	}
	snprintf(path, cap, "%s/full_session_dir.fill", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0) {
		perror("open");
		exit(99);
	}
	memset(buf, 7, sizeof(buf));
	while (write(fd, buf, sizeof(buf)) > 0)
		;
	printf("filled: %s\n", strerror(errno));
	close(fd);
}

static long make_blocks(void)
{
	long made = 0;

	for (int i = 0; i < BLOCKS; i++) {
		char *volatile p = malloc(16 + i % 500);

		made += p != NULL;
		free(p);
	}
	return made;
}

static void *thread_main(void *arg)
{
	(void)arg;
	printf("thread made %ld\n", make_blocks());
	return NULL;
}

int main(int argc, char **argv)
{
	char path[4096];
	pthread_t th;
	pid_t pid;
	int status;

	if (argc != 2)
		return 2;
	setvbuf(stdout, NULL, _IONBF, 0);
	before_fill();
	fill(argv[1], path, sizeof(path));
	pid = fork();
	if (pid == 0)
		_exit(make_blocks() == BLOCKS ? 0 : 1);
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return 98;
	printf("child exited %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	if (pthread_create(&th, NULL, thread_main, NULL) != 0 || pthread_join(th, NULL) != 0)
		return 97;
	printf("main made %ld\n", make_blocks());
	unlink(path);
	return 3;
}
