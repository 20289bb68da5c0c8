/*
 * tests/progs/membarrier_refused.c - a program that installs a seccomp
 * filter making membarrier() fail with EPERM, then starts its second
 * thread (tests/e2e/membarrier-refused.sh).  The recorder hands the
 * sequence counter from the first thread to the others with membarrier().
 *
 * usage: membarrier_refused prctl|raw   (how the filter is installed:
 * prctl(PR_SET_SECCOMP), which the recorder sees, or the seccomp system
 * call made by the program's own instruction, which it cannot see; raw is
 * x86_64 only and exits 3 elsewhere)
 * 1. Keeps a block of 100 bytes.
 * 2. Installs the filter.
 * 3. Starts a thread; it and the main thread each make 10000 malloc(16) +
 *    free pairs at once; the main thread joins it.
 * 4. Prints "membarrier -1 EPERM" (what membarrier returns now) and
 *    returns 0.
 * Allocations: 1 + 20000 + the new thread's TLS (pthread_create) +
 * stdout's buffer; 20000 frees.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/filter.h>
#include <linux/membarrier.h>
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

#define PAIRS 10000

static void *volatile kept;

static void sandbox(int raw)
{
	struct sock_filter filter[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_membarrier, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(filter) / sizeof(filter[0]), filter };

	seccomp_install(raw, &prog);
}

static void *pairs(void *arg)
{
	void *volatile block;

	for (int i = 0; i < PAIRS; i++) {
		block = malloc(16);
		free(block);
	}
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t thread;
	long rc;

	if (argc != 2 || (strcmp(argv[1], "prctl") != 0 && strcmp(argv[1], "raw") != 0)) {
		fprintf(stderr, "usage: membarrier_refused prctl|raw\n");
		return 2;
	}
	kept = malloc(100);
	sandbox(strcmp(argv[1], "raw") == 0);
	if (pthread_create(&thread, NULL, pairs, NULL) != 0)
		return 1;
	pairs(NULL);
	pthread_join(thread, NULL);
	rc = syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
	printf("membarrier %ld %s\n", rc, rc < 0 && errno == EPERM ? "EPERM" : "?");
	return 0;
}
