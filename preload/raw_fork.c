/*
 * preload/raw_fork.c - children made by a fork-like system call that the
 * program makes through syscall(): syscall(SYS_fork), or SYS_clone or
 * SYS_clone3 without CLONE_VM.  The C library runs no pthread_atfork
 * handler for them, so such a child found the parent's rings and process
 * file and stopped recording without a word (preload/fork.h,
 * fork_unseen_child).
 *
 * When the process has one thread (the caller) and no seccomp filter, the
 * call runs between the fork handlers as fork() does, and the child is
 * recorded like a fork child: no other thread can hold a lock the child
 * inherits, the recorder's or the C library's (the child's recorder walks
 * the loader's module list).  Otherwise the child runs unrecorded and the
 * parent counts it in its header (children_raw, or children_sandboxed
 * under a filter, which may kill the child for opening its file), for the
 * launcher to name.  A clone with CLONE_VM (a thread, vfork), CLONE_SETTLS
 * or its own stack is left alone: the child shares the parent's memory or
 * does not return into the caller's frames.  Under a seccomp filter clone3's
 * arguments are not read (the read itself may be refused by killing).
 *
 * Never calls malloc; changes no argument, return value or errno.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "preload/fork.h"
#include "preload/process.h"
#include "preload/raw_fork.h"
#include "preload/seccomp_watch.h"

/* The clone flags that make the child something other than a copy that
 * returns where the parent does. */
#define RAW_FORK_NOT_A_COPY ((uint64_t)(CLONE_VM | CLONE_SETTLS))

/* Whether clone3's arguments at address args (size bytes) make a copy of
 * the process: read through process_vm_readv, so that an address the
 * kernel would refuse with EFAULT is refused here too, not a fault. */
static int raw_fork_clone3_copies(long args, long size)
{
	struct clone_args ca;
	struct iovec local = { &ca, CLONE_ARGS_SIZE_VER0 };
	struct iovec remote = { (void *)args, CLONE_ARGS_SIZE_VER0 };

	/* under a filter, process_vm_readv may be what kills the process */
	if (!args || size < CLONE_ARGS_SIZE_VER0 || seccomp_watch_filtered())
		return 0;
	memset(&ca, 0, sizeof(ca));
	if (process_vm_readv(getpid(), &local, 1, &remote, 1, 0) != (ssize_t)local.iov_len)
		return 0;
	return !(ca.flags & RAW_FORK_NOT_A_COPY) && ca.stack == 0;
}

/* Whether system call nr with arguments a makes a copy of the process. */
static int raw_fork_copies(long nr, const long a[6])
{
	if (nr == SYS_fork)
		return 1;
	if (nr == SYS_clone)
		return !((uint64_t)a[0] & RAW_FORK_NOT_A_COPY) && a[1] == 0;
	if (nr == SYS_clone3)
		return raw_fork_clone3_copies(a[0], a[1]);
	return 0;
}

/* Whether the process has one thread: /proc/PID/task links 2 + threads.
 * No: when /proc cannot tell. */
static int raw_fork_one_thread(void)
{
	struct stat st;

	return stat("/proc/self/task", &st) == 0 && st.st_nlink == 3;
}

enum raw_fork_mode raw_fork_before(long nr, const long a[6])
{
	int err = errno;
	enum raw_fork_mode mode;

	if (!raw_fork_copies(nr, a) ||
	    atomic_load_explicit(&preload_phase, memory_order_acquire) != PRELOAD_READY ||
	    !preload_proc.hdr)
		return RAW_FORK_NONE;
	if (seccomp_watch_filtered() || !raw_fork_one_thread()) {
		mode = RAW_FORK_COUNTED;
	} else {
		fork_handler_prepare();
		mode = RAW_FORK_HANDLED;
	}
	errno = err;
	return mode;
}

void raw_fork_after(enum raw_fork_mode mode, long rc)
{
	struct session_proc_header *h = preload_proc.hdr;
	int err = errno;

	if (mode == RAW_FORK_HANDLED) {
		if (rc == 0)
			fork_handler_child();
		else
			fork_handler_parent();
	} else if (mode == RAW_FORK_COUNTED && rc > 0 && h) {
		if (seccomp_watch_filtered())
			atomic_fetch_add(&h->children_sandboxed, 1);
		else
			atomic_fetch_add(&h->children_raw, 1);
	}
	errno = err;
}
