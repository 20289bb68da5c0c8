/*
 * no_pwrite_exec.c - PROGRAM [ARGS...]: installs a seccomp filter (prctl)
 * that kills the process on pwrite64, then executes PROGRAM, which starts
 * under that filter (tests/e2e/libc-entry-points.sh).  Exits 127 when
 * PROGRAM cannot be executed, 1 when the filter cannot be installed.
 */
#define _GNU_SOURCE
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "seccomp_raw.h"

int main(int argc, char **argv)
{
	struct sock_filter filter[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_pwrite64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
	};
	struct sock_fprog prog = { sizeof(filter) / sizeof(filter[0]), filter };

	if (argc < 2)
		return 2;
	seccomp_install(0, &prog);
	execvp(argv[1], argv + 1);
	perror(argv[1]);
	return 127;
}
