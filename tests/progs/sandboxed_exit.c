/*
 * tests/progs/sandboxed_exit.c - a program that sandboxes itself after its
 * setup with a seccomp filter that kills the process on open or openat,
 * as programs that drop their file access do (tests/e2e/sandboxed-exit.sh).
 *
 * usage: sandboxed_exit PADDING   (PADDING at least 40 bytes long, so that
 * the argument area holds the titles below whatever the program's path)
 * 1. Keeps 3 blocks of 100 bytes.
 * 2. Forks a kid, which titles itself "demo: sandboxed kid" (written over
 *    argv in place, the rest of the area zeroed) and "sandboxed-kid"
 *    (PR_SET_NAME), installs the filter, touches a 16 MiB block and calls
 *    exit(7).
 * 3. Installs the filter in itself, then forks a second kid, which frees a
 *    block of 100 bytes it allocates and calls exit(5).
 * 4. Titles itself "demo: sandboxed parent" the way setproctitle does when
 *    the title overflows: the argument area's last NUL is overwritten, so
 *    the kernel reads the title up to its first NUL.
 * 5. Touches an 8 MiB block, prints "kids 7 5" (their exit statuses, or
 *    minus the signal that killed them) and returns 0.
 * Allocations: 3 + 1 (16 MiB, the first kid's) + 1 (8 MiB) + stdout's
 * buffer in the parent's image; the second kid's 1 is its own.
 */
#define _GNU_SOURCE
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "seccomp_raw.h"

#define KID_BYTES (16u << 20)
#define PARENT_BYTES (8u << 20)

static char *title_area;
static size_t title_bytes; /* up to the last argument's NUL, excluded */
static void *volatile kept[4]; /* the blocks the program keeps */

static void sandbox(void)
{
	struct sock_filter filter[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_open, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_openat, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
	};
	struct sock_fprog prog = { sizeof(filter) / sizeof(filter[0]), filter };

	seccomp_install(0, &prog);
}

/* Writes every page of a new block of size_bytes, kept (its pages count). */
static void touch(size_t size_bytes)
{
	char *p = malloc(size_bytes);

	if (!p)
		exit(1);
	for (size_t i = 0; i < size_bytes; i += 4096)
		p[i] = 1;
	kept[3] = p;
}

static int kid_status(pid_t pid)
{
	int status;

	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -100;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
}

int main(int argc, char **argv)
{
	pid_t kid;
	int first, second;

	if (argc != 2 || strlen(argv[1]) < 40) {
		fprintf(stderr, "usage: sandboxed_exit PADDING (at least 40 bytes)\n");
		return 2;
	}
	title_area = argv[0];
	title_bytes = (size_t)(argv[argc - 1] + strlen(argv[argc - 1]) - argv[0]);
	for (int i = 0; i < 3; i++)
		kept[i] = malloc(100);
	kid = fork();
	if (kid == 0) {
		memset(title_area, 0, title_bytes);
		strcpy(title_area, "demo: sandboxed kid");
		prctl(PR_SET_NAME, "sandboxed-kid", 0, 0, 0);
		sandbox();
		touch(KID_BYTES);
		exit(7);
	}
	first = kid_status(kid);
	sandbox();
	kid = fork();
	if (kid == 0) {
		free(malloc(100));
		exit(5);
	}
	second = kid_status(kid);
	memset(title_area, 'x', title_bytes + 1);
	strcpy(title_area, "demo: sandboxed parent");
	touch(PARENT_BYTES);
	printf("kids %d %d\n", first, second);
	return 0;
}
