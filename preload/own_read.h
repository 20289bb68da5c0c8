/*
 * preload/own_read.h - reads of the program's own memory at an address it
 * handed a system call (clone3's arguments, a raw sigaction's action),
 * made before the kernel checks the address (an exec's path and
 * environment too, with batches of their own: exec_args.c).
 *
 * They go through process_vm_readv(2), one 4 KiB span at a time, so that
 * an address the kernel would refuse with EFAULT is refused here too, not
 * a fault in the shim.
 */
#ifndef MPROF_PRELOAD_OWN_READ_H
#define MPROF_PRELOAD_OWN_READ_H

#include <stdint.h>
#include <sys/uio.h>
#include <unistd.h>

/*
 * Copies size bytes at the program's address src into dst.  Returns 0, or
 * -1 when they cannot all be read (or process_vm_readv itself is refused:
 * ENOSYS, EPERM).  Changes errno; never allocates.
 */
static inline int own_read(void *dst, const void *src, size_t size)
{
	uintptr_t at = (uintptr_t)src;

	while (size) {
		size_t n = 4096 - (at & 4095);
		struct iovec local, remote;
		ssize_t rc;

		if (n > size)
			n = size;
		local = (struct iovec){ dst, n };
		remote = (struct iovec){ (void *)at, n };
		rc = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
		if (rc != (ssize_t)n)
			return -1;
		dst = (char *)dst + n;
		at += n;
		size -= n;
	}
	return 0;
}

#endif
