/*
 * tests/progs/seccomp_raw.h - installing a seccomp filter through
 * prctl(PR_SET_SECCOMP), which the recorder sees, or by a syscall
 * instruction of the program's own, which its syscall() wrapper does not
 * see (membarrier_refused.c, mmap_refused_fork.c).
 */
#ifndef MPROF_TESTS_SECCOMP_RAW_H
#define MPROF_TESTS_SECCOMP_RAW_H

#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

/* seccomp(op, flags, args) without the C library: -errno or 0.  Other than
 * on x86_64 the program exits with status 3 (the tests skip then). */
static inline long seccomp_raw(unsigned op, unsigned flags, void *args)
{
#if defined(__x86_64__)
	long rc;

	__asm__ volatile("syscall"
			 : "=a"(rc)
			 : "0"((long)SYS_seccomp), "D"((long)op), "S"((long)flags), "d"(args)
			 : "rcx", "r11", "memory");
	return rc;
#else
	(void)op, (void)flags, (void)args;
	exit(3);
#endif
}

/* Sets no_new_privs and installs prog, by the raw system call when raw is
 * non-zero; exits with status 1, saying why, when either fails. */
static inline void seccomp_install(int raw, struct sock_fprog *prog)
{
	long rc;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
		perror("no_new_privs");
		exit(1);
	}
	if (raw)
		rc = seccomp_raw(SECCOMP_SET_MODE_FILTER, 0, prog);
	else
		rc = prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, prog);
	if (rc != 0) {
		fprintf(stderr, "seccomp: %ld\n", rc);
		exit(1);
	}
}

#endif
