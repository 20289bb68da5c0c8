/*
 * preload/libunwind_fds.c - keeps libunwind's file descriptors out of the
 * program's way (see preload/libunwind_fds.h).
 *
 * libunwind (1.6, x86_64) opens a pipe when it initializes and, when a
 * frame has no unwind information, checks that an address is readable by
 * reading one byte from the pipe and writing one from the address into it.
 * The pipe takes the lowest free descriptors (3 and 4, or 0 and 1 when the
 * program was started with them closed), which the program then sees as
 * its own; a program that closes every descriptor from 3 up and opens its
 * files gets those numbers back, and libunwind's next check reads from
 * its input file and writes into its output file.  So pipe2() and pipe()
 * are defined here: called from inside libunwind (the calling thread's
 * flag, set around every call into it), the two descriptors are moved to
 * the top of RLIMIT_NOFILE, where the program does not look; from the
 * program, they are the C library's, unchanged.  A program that closes
 * the moved pipe makes libunwind open another one, moved again.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload/exported.h"
#include "preload/libunwind_fds.h"

/* How far below the descriptor limit the moved pipe goes: room for the
 * two, and for one more pipe if libunwind opens another before closing
 * the first; under a limit this small times three, just the two. */
#define LIBUNWIND_FDS_TOP_ROOM 8

__thread int libunwind_fds_inside __attribute__((tls_model("initial-exec")));

/* The next definition of name after the shim's (the C library's, or that
 * of a library preloaded after mprof's). */
static void *next_fn(void *volatile *slot, const char *name)
{
	void *fn = __atomic_load_n(slot, __ATOMIC_ACQUIRE);

	if (!fn) {
		fn = dlsym(RTLD_NEXT, name);
		__atomic_store_n(slot, fn, __ATOMIC_RELEASE);
	}
	return fn;
}

/* fd moved to the top of the descriptor limit, keeping its close-on-exec
 * flag (its file status flags, O_NONBLOCK, belong to the pipe); fd itself
 * when there is no room up there. */
static int move_high(int fd)
{
	struct rlimit lim;
	int high, room, fd_flags = fcntl(fd, F_GETFD);

	if (fd_flags < 0 || getrlimit(RLIMIT_NOFILE, &lim) != 0 ||
	    lim.rlim_cur == RLIM_INFINITY || lim.rlim_cur > (1u << 30))
		return fd;
	room = lim.rlim_cur > 3 * LIBUNWIND_FDS_TOP_ROOM ? LIBUNWIND_FDS_TOP_ROOM : 2;
	if ((int)lim.rlim_cur - room <= fd)
		return fd;
	high = fcntl(fd, (fd_flags & FD_CLOEXEC) ? F_DUPFD_CLOEXEC : F_DUPFD,
		     (int)lim.rlim_cur - room);
	if (high < 0)
		return fd;
	close(fd);
	return high;
}

static int pipe2_next(int fds[2], int flags)
{
	static void *volatile slot;
	int (*fn)(int[2], int) = (int (*)(int[2], int))next_fn(&slot, "pipe2");

	return fn ? fn(fds, flags) : (int)syscall(SYS_pipe2, fds, flags);
}

PRELOAD_API int pipe2(int fds[2], int flags)
{
	int saved, rc = pipe2_next(fds, flags);

	if (rc == 0 && libunwind_fds_inside) {
		saved = errno;
		fds[0] = move_high(fds[0]);
		fds[1] = move_high(fds[1]);
		errno = saved;
	}
	return rc;
}

PRELOAD_API int pipe(int fds[2])
{
	static void *volatile slot;
	int (*fn)(int[2]);

	if (libunwind_fds_inside)
		return pipe2(fds, 0);
	fn = (int (*)(int[2]))next_fn(&slot, "pipe");
	return fn ? fn(fds) : (int)syscall(SYS_pipe2, fds, 0);
}
