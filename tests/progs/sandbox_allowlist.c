/*
 * tests/progs/sandbox_allowlist.c - a program that sandboxes itself with a
 * seccomp filter that kills the process on mincore, msync and prctl, system
 * calls that an allow-list sandbox such as Firefox's content process policy
 * does not expect (tests/e2e/sandbox-allowlist.sh).
 *
 * usage: sandbox_allowlist PADDING   (PADDING at least 40 bytes long, so
 * that the argument area holds the title below whatever the program's path)
 * 1. Names itself "allowlisted" (PR_SET_NAME) and keeps 2 blocks of 100
 *    bytes.
 * 2. Installs the filter, then titles itself "demo: allowlisted" (written
 *    over argv in place, the rest of the area zeroed).
 * 3. Frees one block, prints "sandboxed" and returns 0.
 * Allocations: 2 + stdout's buffer; leaked: 1 block of 100 bytes and the
 * buffer.
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
#include <unistd.h>

#include "seccomp_raw.h"

static void *volatile kept[2];

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

int main(int argc, char **argv)
{
	size_t title_bytes;

	if (argc != 2 || strlen(argv[1]) < 40) {
		fprintf(stderr, "usage: sandbox_allowlist PADDING (at least 40 bytes)\n");
		return 2;
	}
	title_bytes = (size_t)(argv[argc - 1] + strlen(argv[argc - 1]) - argv[0]);
	prctl(PR_SET_NAME, "allowlisted", 0, 0, 0);
	kept[0] = malloc(100);
	kept[1] = malloc(100);
	sandbox();
	memset(argv[0], 0, title_bytes);
	strcpy(argv[0], "demo: allowlisted");
	free(kept[1]);
	printf("sandboxed\n");
	return 0;
}
