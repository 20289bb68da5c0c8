/*
 * preload/libunwind_fds.c - libunwind holds no file descriptor (see
 * preload/libunwind_fds.h).
 *
 * libunwind (1.6 to 1.8) checks that an address is readable before it
 * reads it (in frames without unwind information and, built with
 * conservative checks as Debian's is, in every step from a frame not yet
 * in its cache) by reading a byte from a pipe of its own and writing the
 * byte at the address into it; when the read fails it closes both ends and
 * opens another pipe.  Wherever that pipe sits, the program may own the
 * number (closefrom, a dup2 over every number), and libunwind then reads,
 * writes and closes the program's descriptor.  (Checking before each call
 * that the pipe is still libunwind's would cost two fstat calls, about
 * 2.5 us, on every stack with MPROF_UNWIND=libunwind, and would still race
 * the program's other threads.)  So libunwind gets no pipe:
 * its imports of pipe2, pipe, read, write and syscall are bound
 * (preload/import_bind.h) to the functions here, which hand it two numbers
 * no descriptor can have, answer its read as an empty pipe does and check
 * its one-byte write with process_vm_readv(2), which needs no descriptor.
 * Its other calls of these go to the system calls through syscall(2),
 * never a cancellation point inside malloc (preload/sys.h).  Never
 * allocates.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "preload/import_bind.h"
#include "preload/libunwind_fds.h"
#include "preload/sys.h"

/* The ends of libunwind's pipe: negative, so never a descriptor, and not
 * -1, which libunwind takes for "no pipe". */
#define LIBUNWIND_FDS_READ_END (-2)
#define LIBUNWIND_FDS_WRITE_END (-3)

/* Set once process_vm_readv is refused (a sandbox): the check then uses a
 * pipe of its own for each byte. */
static _Atomic int libunwind_fds_vm_refused;

/* The check through a pipe opened at free numbers and closed before it
 * returns, so it holds no number the program may take later. */
static long libunwind_fds_write_piped(const void *addr)
{
	int fds[2], saved;
	long n;

	if (syscall(SYS_pipe2, fds, O_CLOEXEC | O_NONBLOCK) != 0)
		return -1;
	n = syscall(SYS_write, fds[1], addr, 1);
	saved = errno;
	sys_close(fds[0]);
	sys_close(fds[1]);
	errno = saved;
	return n;
}

/* What libunwind's write of the byte at addr into its empty pipe would
 * return: 1, or -1 with errno EFAULT when the byte cannot be read. */
static long libunwind_fds_write_byte(const void *addr)
{
	char byte;
	struct iovec local = { &byte, 1 }, remote = { (void *)addr, 1 };
	long n;

	if (!libunwind_fds_vm_refused) {
		n = syscall(SYS_process_vm_readv, getpid(), &local, 1, &remote, 1, 0);
		if (n == 1 || (n < 0 && errno == EFAULT))
			return n;
		libunwind_fds_vm_refused = 1;
	}
	return libunwind_fds_write_piped(addr);
}

static int libunwind_fds_pipe2(int fds[2], int flags)
{
	(void)flags;
	fds[0] = LIBUNWIND_FDS_READ_END;
	fds[1] = LIBUNWIND_FDS_WRITE_END;
	return 0;
}

static int libunwind_fds_pipe(int fds[2])
{
	return libunwind_fds_pipe2(fds, 0);
}

static ssize_t libunwind_fds_read(int fd, void *buf, size_t bytes)
{
	if (fd != LIBUNWIND_FDS_READ_END)
		return sys_read(fd, buf, bytes);
	errno = EAGAIN; /* the pipe is always empty: every byte "written" was only checked */
	return -1;
}

static ssize_t libunwind_fds_write(int fd, const void *buf, size_t bytes)
{
	if (fd == LIBUNWIND_FDS_WRITE_END)
		return libunwind_fds_write_byte(buf);
	return syscall(SYS_write, fd, buf, bytes);
}

/* syscall(2) reads six arguments whatever the number; so does this.  The
 * descriptor was passed as an int: only its low 32 bits are set. */
static long libunwind_fds_syscall(long number, ...)
{
	long a[6];
	va_list ap;

	va_start(ap, number);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (number == SYS_write && (int)a[0] == LIBUNWIND_FDS_WRITE_END)
		return libunwind_fds_write_byte((const void *)a[1]);
	return syscall(number, a[0], a[1], a[2], a[3], a[4], a[5]);
}

int libunwind_fds_bind(void *handle)
{
	struct import_binding bindings[] = {
		{ "pipe2", (void *)libunwind_fds_pipe2, 0 },
		{ "pipe", (void *)libunwind_fds_pipe, 0 },
		{ "read", (void *)libunwind_fds_read, 0 },
		{ "write", (void *)libunwind_fds_write, 0 },
		{ "syscall", (void *)libunwind_fds_syscall, 0 },
	};

	return import_bind_module(handle, bindings, sizeof(bindings) / sizeof(bindings[0]));
}
