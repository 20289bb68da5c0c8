/*
 * tests/progs/prctl_sandbox.c - a program that sandboxes itself with a
 * Chromium-style seccomp filter: any prctl option but PR_GET_NAME and
 * PR_SET_NAME kills the process (SECCOMP_RET_KILL_PROCESS), as Chromium's
 * policies crash on prctl options they do not expect
 * (tests/e2e/prctl-sandbox.sh).
 *
 * usage: prctl_sandbox prctl|syscall   (how the filter is installed:
 * prctl(PR_SET_SECCOMP), or syscall(SYS_seccomp) as libseccomp does)
 * 1. Keeps 2 blocks of 100 bytes.
 * 2. Installs the filter.
 * 3. Forks a kid, which frees a block of 200 bytes it allocates and calls
 *    exit(5).
 * 4. Keeps a block of 300 bytes, prints "kid 5" (its exit status, or minus
 *    the signal that killed it) and returns 0.
 * Allocations in the program's image: 2 + 1 + stdout's buffer.
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

static void *volatile kept[3];

static void sandbox(int by_syscall)
{
	struct sock_filter filter[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_prctl, 0, 4),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PR_GET_NAME, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PR_SET_NAME, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(filter) / sizeof(filter[0]), filter };
	int rc;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
		perror("no_new_privs");
		exit(1);
	}
	if (by_syscall)
		rc = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
	else
		rc = prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
	if (rc != 0) {
		perror("seccomp");
		exit(1);
	}
}

int main(int argc, char **argv)
{
	int status, kid_status;
	pid_t kid;

	if (argc != 2 || (strcmp(argv[1], "prctl") != 0 && strcmp(argv[1], "syscall") != 0)) {
		fprintf(stderr, "usage: prctl_sandbox prctl|syscall\n");
		return 2;
	}
	kept[0] = malloc(100);
	kept[1] = malloc(100);
	sandbox(strcmp(argv[1], "syscall") == 0);
	kid = fork();
	if (kid == 0) {
		free(malloc(200));
		exit(5);
	}
	if (kid < 0 || waitpid(kid, &status, 0) != kid)
		kid_status = -100;
	else
		kid_status = WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
	kept[2] = malloc(300);
	printf("kid %d\n", kid_status);
	return 0;
}
