/*
 * preload/wait_copy.c - copies what a wrapped wait call's kernel wrote into
 * the wrapper's own buffers out to the program's status, rusage or siginfo.
 *
 * The kernel reaps a child before it writes the status, so a call given a
 * pointer it cannot write reaps the child and fails with EFAULT, and the
 * pid of the child it reaped is lost with the return value.  The wrappers
 * of preload/reap_note.c therefore give the kernel buffers of their own,
 * note the child, and copy out here.  Whether the program's memory can be
 * written is asked of the kernel by a system call that writes the same
 * bytes (getcpu: 4, getrusage: a whole struct rusage), whose own copy fails
 * with EFAULT where the wait call's would have; the wrapper's value then
 * overwrites what it wrote.  A call refused otherwise (a sandbox's ENOSYS)
 * counts as writable.  Callers under a seccomp filter do not come here (the
 * question might kill the process).  Never allocates; the order of writes
 * and what is written when one fails are the kernel's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload/wait_copy.h"

#define WAIT_COPY_PAGE 4096u

/* -1 with errno EFAULT when the kernel could not write at p; else 0 with
 * errno kept.  rc is what the system call that wrote there returned. */
static int wait_copy_answer(long rc, int saved)
{
	if (rc < 0 && errno == EFAULT)
		return -1;
	errno = saved;
	return 0;
}

/* Whether the 4 bytes at p can be written (getcpu writes an unsigned int). */
static int wait_copy_int_writable(void *p)
{
	int saved = errno;

	return wait_copy_answer(syscall(SYS_getcpu, p, NULL, NULL), saved);
}

int wait_copy_status(int *dst, int status)
{
	if (wait_copy_int_writable(dst) != 0)
		return -1;
	memcpy(dst, &status, sizeof(status));
	return 0;
}

/* The bytes from p to the end of its 4 KiB page. */
static size_t wait_copy_page_rest(const void *p)
{
	return WAIT_COPY_PAGE - ((uintptr_t)p & (WAIT_COPY_PAGE - 1));
}

/*
 * After getrusage found part of dst unwritable: writes src's bytes up to
 * the first page of dst that cannot be written, as the kernel's
 * copy_to_user does (a page is asked about by its last 4 bytes in dst,
 * which src's then overwrite; a first piece under 4 bytes counts as
 * unwritable).
 */
static void wait_copy_usage_prefix(struct rusage *dst, const struct rusage *src)
{
	char *to = (char *)dst;
	size_t done = 0;

	while (done < sizeof(*src)) {
		size_t n = wait_copy_page_rest(to + done);

		if (n > sizeof(*src) - done)
			break; /* the last piece: getrusage said it cannot be written */
		if (done + n < sizeof(int) || wait_copy_int_writable(to + done + n - sizeof(int)) != 0)
			break;
		memcpy(to + done, (const char *)src + done, n);
		done += n;
	}
}

int wait_copy_usage(struct rusage *dst, const struct rusage *src)
{
	int saved = errno;

	if (wait_copy_answer(syscall(SYS_getrusage, RUSAGE_SELF, dst), saved) != 0) {
		wait_copy_usage_prefix(dst, src);
		errno = EFAULT;
		return -1;
	}
	memcpy(dst, src, sizeof(*src));
	return 0;
}

/* Writes the int at offset off of src into dst, if it can be written. */
static int wait_copy_info_field(siginfo_t *dst, const siginfo_t *src, size_t off)
{
	char *to = (char *)dst + off;

	if (wait_copy_int_writable(to) != 0)
		return -1;
	memcpy(to, (const char *)src + off, sizeof(int));
	return 0;
}

int wait_copy_info(siginfo_t *dst, const siginfo_t *src)
{
	static const size_t fields[] = {
		offsetof(siginfo_t, si_signo), offsetof(siginfo_t, si_errno),
		offsetof(siginfo_t, si_code),  offsetof(siginfo_t, si_pid),
		offsetof(siginfo_t, si_uid),   offsetof(siginfo_t, si_status),
	};

	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		if (wait_copy_info_field(dst, src, fields[i]) != 0)
			return -1;
	return 0;
}
