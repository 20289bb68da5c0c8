/*
 * unrecorded_comm.c - a program that renames itself by writing
 * /proc/self/task/TID/comm, for tests/e2e/unrecorded-comm.sh.
 *
 * usage: unrecorded_comm plain|filtered
 * 1. Names itself "beforefilter" (PR_SET_NAME).
 * 2. filtered: installs a seccomp filter that kills the process on prctl,
 *    mincore and msync (as an allow-list sandbox does).
 * 3. Writes "renamed" to /proc/self/task/TID/comm (its main thread).
 * 4. Starts a thread that makes thread_alloc: 1 x malloc(64), freed, and
 *    joins it.
 * 5. Prints "comm renamed" and returns 0.
 * Allocations: 1 + stdout's buffer; leaked: the buffer.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "seccomp_raw.h"

static void *volatile kept;

static void sandbox(void)
{
	struct sock_filter filter[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_mincore, 3, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_msync, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_prctl, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
	};
	struct sock_fprog prog = { sizeof(filter) / sizeof(filter[0]), filter };

	seccomp_install(0, &prog);
}

__attribute__((noinline)) static void *thread_alloc(void *arg)
{
	(void)arg;
	kept = malloc(64);
	free(kept);
	return NULL;
}

int main(int argc, char **argv)
{
	char path[64];
	pthread_t th;
	int fd;

	if (argc != 2 || (strcmp(argv[1], "plain") != 0 && strcmp(argv[1], "filtered") != 0)) {
		fprintf(stderr, "usage: unrecorded_comm plain|filtered\n");
		return 2;
	}
	prctl(PR_SET_NAME, "beforefilter", 0, 0, 0);
	if (strcmp(argv[1], "filtered") == 0)
		sandbox();
	snprintf(path, sizeof(path), "/proc/self/task/%ld/comm", (long)syscall(SYS_gettid));
	fd = open(path, O_WRONLY);
	if (fd < 0 || write(fd, "renamed", 7) != 7) {
		perror(path);
		return 1;
	}
	close(fd);
	if (pthread_create(&th, NULL, thread_alloc, NULL) != 0 || pthread_join(th, NULL) != 0)
		return 1;
	printf("comm renamed\n");
	return 0;
}
