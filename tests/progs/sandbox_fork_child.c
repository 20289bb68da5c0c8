/*
 * tests/progs/sandbox_fork_child.c - a program under a seccomp filter that
 * kills the process on getppid, which a sandbox need not allow, forks
 * children that exit at once without an exec (tests/e2e/sandbox-fork-child.sh).
 *
 * Keeps a block of 100 bytes, installs the filter, forks 3 children, each
 * of which allocates and frees a block and exits with status 7, and prints
 * "child N: exit 7" (or "signal S": 31 is SIGSYS, the filter's kill) for
 * each; returns 0.
 */
#define _GNU_SOURCE
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static void *volatile kept;

static int sandbox(void)
{
	struct sock_filter filter[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getppid, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(filter) / sizeof(filter[0]), filter };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

int main(void)
{
	kept = malloc(100);
	if (sandbox() != 0) {
		perror("seccomp");
		return 1;
	}
	for (int i = 1; i <= 3; i++) {
		int status;
		pid_t pid;

		fflush(stdout);
		pid = fork();
		if (pid == 0) {
			kept = malloc(50);
			free(kept);
			_exit(7);
		}
		if (pid < 0 || waitpid(pid, &status, 0) != pid)
			printf("child %d: not started\n", i);
		else if (WIFSIGNALED(status))
			printf("child %d: signal %d\n", i, WTERMSIG(status));
		else
			printf("child %d: exit %d\n", i, WEXITSTATUS(status));
	}
	return 0;
}
