/*
 * preload/sys.h - the system calls the shim makes whose C-library wrappers
 * are cancellation points (open, read, pwrite, close, nanosleep, msync).
 *
 * The shim runs inside allocator calls, which are not cancellation points:
 * a thread with a pending deferred cancellation must never be unwound from
 * inside malloc (it would leave the shim's per-thread state busy and change
 * where the program's thread ends).  syscall(2) never acts on a cancellation,
 * so these go through it.  Each returns what the system call returns, -1 with
 * errno set on failure.
 */
#ifndef MPROF_PRELOAD_SYS_H
#define MPROF_PRELOAD_SYS_H

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static inline int sys_open(const char *path, int flags, mode_t mode)
{
	return (int)syscall(SYS_openat, AT_FDCWD, path, flags, mode);
}

static inline ssize_t sys_read(int fd, void *buf, size_t bytes)
{
	return (ssize_t)syscall(SYS_read, fd, buf, bytes);
}

static inline ssize_t sys_pwrite(int fd, const void *buf, size_t bytes, off_t offset)
{
	return (ssize_t)syscall(SYS_pwrite64, fd, buf, bytes, offset);
}

static inline int sys_close(int fd)
{
	return (int)syscall(SYS_close, fd);
}

static inline int sys_nanosleep(const struct timespec *nap)
{
	return (int)syscall(SYS_nanosleep, nap, NULL);
}

/* Reads the file at path into buf until its end or cap bytes, retrying a
 * read a signal interrupted, and closes it: the bytes read, or -1 when it
 * cannot be opened.  For the shim's few reads of /proc/self files that
 * fill a read up to their end (one seq_file record: status, stat, comm,
 * timens_offsets; or the process's memory: cmdline, environ), so a short
 * read is the end and the read that would return 0 is not made (1-1.5 us
 * a file).  Not for multi-record files such as maps, whose reads stop at
 * a page. */
static inline ssize_t sys_read_file(const char *path, char *buf, size_t cap)
{
	size_t len = 0;
	int fd = sys_open(path, O_RDONLY | O_CLOEXEC, 0);

	if (fd < 0)
		return -1;
	while (len < cap) {
		ssize_t n = sys_read(fd, buf + len, cap - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
		if ((size_t)n < cap - len + (size_t)n)
			break;
	}
	sys_close(fd);
	return (ssize_t)len;
}

/* 0 when every page of [addr, addr + bytes) is mapped (addr page-aligned);
 * -1 with errno ENOMEM when one is not.  Touches no page (MS_ASYNC). */
static inline int sys_msync_check(uintptr_t addr, size_t bytes)
{
	return (int)syscall(SYS_msync, addr, bytes, MS_ASYNC);
}

#endif
