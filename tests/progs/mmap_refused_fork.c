/*
 * tests/progs/mmap_refused_fork.c - a program whose seccomp filter makes
 * mmap, mprotect and munmap fail with EPERM, then forks: the kid's recorder
 * cannot map its memory (tests/e2e/mmap-refused-fork.sh).
 *
 * usage: mmap_refused_fork prctl|raw [kill]
 *   prctl: the filter is installed with prctl(PR_SET_SECCOMP), which the
 *          recorder sees;
 *   raw:   with the seccomp system call made by a syscall instruction of
 *          its own, which the recorder does not see;
 *   kill:  the filter kills the process on those calls (SIGSYS) instead.
 * 1. Keeps 2 blocks of 100 bytes, then installs the filter (EPERM for
 *    mmap, mprotect, munmap).
 * 2. Makes 1000 blocks of 48 bytes (the heap grows by brk), keeping 500.
 * 3. Forks a kid, which checks that errno is still 0 after fork() returned,
 *    makes and frees 10 blocks of 64 bytes, and exits with 4 (5 when errno
 *    changed).
 * 4. Prints "kid 4 errno 0" (the kid's exit status; errno after fork() in
 *    the parent) and returns 0.
 * Allocations of the parent: 2 + 1000 + stdout's buffer.
 */
#define _GNU_SOURCE
#include <errno.h>
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

static void *volatile kept[502];

#define REFUSE(nr)                                               \
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1),          \
	BPF_STMT(BPF_RET | BPF_K, refusal)

static void sandbox(int raw, int kill)
{
	unsigned refusal = kill ? SECCOMP_RET_KILL_PROCESS : SECCOMP_RET_ERRNO | EPERM;
	struct sock_filter filter[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		REFUSE(SYS_mmap),
		REFUSE(SYS_mprotect),
		REFUSE(SYS_munmap),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(filter) / sizeof(filter[0]), filter };

	seccomp_install(raw, &prog);
}

int main(int argc, char **argv)
{
	int status, err;
	pid_t kid;

	if (argc < 2 || argc > 3 || (strcmp(argv[1], "prctl") && strcmp(argv[1], "raw")) ||
	    (argc == 3 && strcmp(argv[2], "kill"))) {
		fprintf(stderr, "usage: mmap_refused_fork prctl|raw [kill]\n");
		return 2;
	}
	kept[0] = malloc(100);
	kept[1] = malloc(100);
	sandbox(strcmp(argv[1], "raw") == 0, argc == 3);
	for (int i = 0; i < 1000; i++) {
		void *p = malloc(48);

		if (i % 2)
			free(p);
		else
			kept[2 + i / 2] = p;
	}
	errno = 0;
	kid = fork();
	if (kid == 0) {
		int kid_err = errno;

		for (int i = 0; i < 10; i++) {
			void *volatile p = malloc(64);

			free(p);
		}
		_exit(kid_err ? 5 : 4);
	}
	err = errno;
	if (kid < 0 || waitpid(kid, &status, 0) != kid) {
		perror("fork");
		return 1;
	}
	printf("kid %d errno %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status), err);
	return 0;
}
