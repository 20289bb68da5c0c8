/*
 * preload/wait_copy.h - what a wrapped wait call's kernel wrote into the
 * wrapper's own buffers, copied out to the program's, failing with EFAULT
 * where the kernel's own copy would have (preload/wait_copy.c).
 */
#ifndef MPROF_PRELOAD_WAIT_COPY_H
#define MPROF_PRELOAD_WAIT_COPY_H

#include <signal.h>
#include <sys/resource.h>

/* Each returns 0, or -1 with errno EFAULT when the program's memory at dst
 * cannot be written (nothing, or as much as the kernel would have, is
 * written then).  They never allocate and are safe in a signal handler. */
int wait_copy_status(int *dst, int status);
int wait_copy_usage(struct rusage *dst, const struct rusage *src);

/* Writes the six fields the kernel's waitid writes (si_signo, si_errno,
 * si_code, si_pid, si_uid, si_status) in its order, and no other byte. */
int wait_copy_info(siginfo_t *dst, const siginfo_t *src);

#endif
