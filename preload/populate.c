/*
 * preload/populate.c - faulting in pages of the process file (see
 * populate.h).
 *
 * The process file is sparse: a page of it gets memory at its first write.
 * When the file system behind the session directory is full at that
 * moment, the kernel answers the write with SIGBUS, which killed the
 * program; MADV_POPULATE_WRITE asks for the pages beforehand and answers
 * with an error instead.  Must never allocate; keeps the program's errno.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload/populate.h"
#include "preload/seccomp_watch.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14 (uapi asm-generic/mman-common.h) */
#endif

/* Set once the kernel refused the advice itself (EINVAL: before 5.14;
 * EPERM, ENOSYS: a filter): pages come at their first write from then on. */
static _Atomic int populate_unsupported;

int populate_pages(void *addr, size_t bytes)
{
	int saved_errno = errno, err = 0;
	long rc;

	/* a filter may kill the process on a system call it does not expect */
	if (bytes == 0 || atomic_load_explicit(&populate_unsupported, memory_order_relaxed) ||
	    seccomp_watch_filtered())
		return 0;
	do {
		rc = syscall(SYS_madvise, addr, bytes, MADV_POPULATE_WRITE);
		err = rc < 0 ? errno : 0;
	} while (err == EINTR); /* a fatal signal: the process ends anyway */
	errno = saved_errno;
	if (err == 0)
		return 0;
	if (err == EFAULT || err == ENOMEM || err == ENOSPC)
		return -1;
	atomic_store_explicit(&populate_unsupported, 1, memory_order_relaxed);
	return 0;
}
