/*
 * tests/progs/strict_mode.c - a program that puts itself in seccomp strict
 * mode (only read, write, exit and sigreturn allowed) and goes on
 * allocating from the heap it already has, as a sandboxed worker of a
 * strict-mode design does (tests/e2e/strict-mode.sh).
 *
 * usage: strict_mode prctl|syscall N
 * 1. Keeps 3 blocks of 100 bytes, makes and frees a block of 1 MiB (the
 *    heap grows once, so no later malloc needs a system call).
 * 2. Enters strict mode with prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT) or
 *    syscall(SYS_seccomp, SECCOMP_SET_MODE_STRICT, 0, NULL).
 * 3. Makes and frees N blocks of 64 bytes, writes "strict N SUM" with
 *    write() and ends its only thread with the exit system call, status 3.
 */
#define _GNU_SOURCE
#include <linux/seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static void *volatile kept[3];

int main(int argc, char **argv)
{
	unsigned long sum = 0;
	char line[64];
	void *volatile warm;
	long rc;
	int n, len;

	if (argc != 3 || (strcmp(argv[1], "prctl") && strcmp(argv[1], "syscall"))) {
		fprintf(stderr, "usage: strict_mode prctl|syscall N\n");
		return 2;
	}
	n = atoi(argv[2]);
	for (int i = 0; i < 3; i++)
		kept[i] = malloc(100);
	warm = malloc(1 << 20);
	free(warm);
	if (strcmp(argv[1], "prctl") == 0)
		rc = prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT);
	else
		rc = syscall(SYS_seccomp, SECCOMP_SET_MODE_STRICT, 0, NULL);
	if (rc != 0) {
		perror("strict mode");
		return 1;
	}
	for (int i = 0; i < n; i++) {
		unsigned char *volatile p = malloc(64);

		p[0] = (unsigned char)i;
		sum += p[0];
		free(p);
	}
	len = snprintf(line, sizeof(line), "strict %d %lu\n", n, sum);
	if (write(1, line, (size_t)len) != len)
		syscall(SYS_exit, 1);
	syscall(SYS_exit, 3);
	return 0;
}
