/*
 * tests/progs/sandbox_exec_lookups.c - a program under a seccomp filter
 * that kills the process on getxattr, statfs and capget, system calls an
 * exec never makes and an allow-list sandbox need not allow, then starts
 * programs by fork and execv and by posix_spawn (tests/e2e/sandbox-exec-lookups.sh).
 *
 * usage: sandbox_exec_lookups PROGRAM...   (each run with no argument)
 * Keeps a block of 100 bytes, installs the filter, then for each PROGRAM
 * prints "NAME fork: STATUS" and "NAME spawn: STATUS", STATUS being "exit
 * N" or "signal N" (31: SIGSYS, the filter's kill), NAME the PROGRAM's
 * last path component; returns 0.
 */
#define _GNU_SOURCE
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <spawn.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;
static void *volatile kept;

static int sandbox(void)
{
	struct sock_filter filter[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getxattr, 3, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_statfs, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_capget, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
	};
	struct sock_fprog prog = { sizeof(filter) / sizeof(filter[0]), filter };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

static void print_status(const char *name, const char *how, pid_t pid)
{
	int status;

	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		printf("%s %s: not started\n", name, how);
	else if (WIFSIGNALED(status))
		printf("%s %s: signal %d\n", name, how, WTERMSIG(status));
	else
		printf("%s %s: exit %d\n", name, how, WEXITSTATUS(status));
	fflush(stdout);
}

int main(int argc, char **argv)
{
	kept = malloc(100);
	if (sandbox() != 0) {
		perror("seccomp");
		return 1;
	}
	for (int i = 1; i < argc; i++) {
		const char *name = strrchr(argv[i], '/') ? strrchr(argv[i], '/') + 1 : argv[i];
		char *child_argv[] = { argv[i], NULL };
		pid_t pid = fork();

		if (pid == 0) {
			execv(argv[i], child_argv);
			_exit(127);
		}
		print_status(name, "fork", pid);
		if (posix_spawn(&pid, argv[i], NULL, NULL, child_argv, environ) != 0)
			pid = -1;
		print_status(name, "spawn", pid);
	}
	return 0;
}
