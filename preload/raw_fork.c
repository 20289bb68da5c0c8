/*
 * preload/raw_fork.c - children made without fork(): by a fork-like system
 * call that the program makes through syscall() (syscall(SYS_fork), or
 * SYS_clone or SYS_clone3 without CLONE_VM), or by the C library's clone()
 * without CLONE_VM.  The C library runs no pthread_atfork handler for them,
 * so such a child found the parent's rings and process file and stopped
 * recording without a word (preload/fork.h, fork_unseen_child).
 *
 * A system call that makes a copy of the process (no stack or TLS of its
 * own), made while the process has one thread (the caller) and no seccomp
 * filter, runs between the fork handlers as fork() does, and the child is
 * recorded like a fork child: no other thread can hold a lock the child
 * inherits, the recorder's or the C library's (the child's recorder walks
 * the loader's module list).  Any other such child runs unrecorded and the
 * parent counts it in its header for the launcher to name, and writes a
 * FORK record for it as for every child (fork_note_child): made while the
 * process had several threads (children_raw), under a seccomp filter, which
 * may kill the child for opening its file (children_sandboxed), or on a
 * stack of its own (children_own_stack: clone() and its like start the
 * child in a function on a stack whose size the recorder cannot know, too
 * small for it perhaps).  A clone with CLONE_VM (a thread, a vfork child)
 * is left alone.  Under a seccomp filter clone3's arguments are not read
 * before the call (process_vm_readv, which checks the address, may be
 * refused by killing): only after a call that made a process, when the
 * kernel has read them.
 *
 * Never calls malloc; changes no argument, return value or errno.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "preload/exported.h"
#include "preload/fork.h"
#include "preload/next_sym.h"
#include "preload/process.h"
#include "preload/own_read.h"
#include "preload/raw_fork.h"
#include "preload/seccomp_watch.h"
#include "preload/thread_pointer.h"

/* What a system call makes: no process of its own (another call, or a
 * clone with CLONE_VM: a thread, a vfork child), a copy of the process that
 * returns where the parent does, or a process on a stack or TLS of its own
 * (CLONE_SETTLS), which does not. */
enum raw_fork_kind { RAW_FORK_NO_PROCESS, RAW_FORK_COPY, RAW_FORK_OWN_STACK };

/* What clone flags flags with stack address stack make. */
static enum raw_fork_kind raw_fork_clone_kind(uint64_t flags, uint64_t stack)
{
	if (flags & CLONE_VM)
		return RAW_FORK_NO_PROCESS;
	return (flags & CLONE_SETTLS) || stack ? RAW_FORK_OWN_STACK : RAW_FORK_COPY;
}

/* What clone3's arguments at address args (size bytes) make: read through
 * process_vm_readv, so that an address the kernel would refuse with EFAULT
 * is refused here too, not a fault. */
static enum raw_fork_kind raw_fork_clone3_kind(long args, long size)
{
	struct clone_args ca;

	if (!args || size < CLONE_ARGS_SIZE_VER0)
		return RAW_FORK_NO_PROCESS;
	memset(&ca, 0, sizeof(ca));
	if (own_read(&ca, (const void *)args, CLONE_ARGS_SIZE_VER0) != 0)
		return RAW_FORK_NO_PROCESS;
	return raw_fork_clone_kind(ca.flags, ca.stack);
}

/* What system call nr with arguments a makes. */
static enum raw_fork_kind raw_fork_kind(long nr, const long a[6])
{
	if (nr == SYS_fork)
		return RAW_FORK_COPY;
	if (nr == SYS_clone)
		return raw_fork_clone_kind((uint64_t)a[0], (uint64_t)a[1]);
	if (nr == SYS_clone3)
		return raw_fork_clone3_kind(a[0], a[1]);
	return RAW_FORK_NO_PROCESS;
}

enum { NEXT_CLONE, NEXT_COUNT };
static const char *const next_names[NEXT_COUNT] = { "clone" };
static void *volatile next_slots[NEXT_COUNT];

void raw_fork_resolve(void)
{
	next_sym_resolve(next_slots, next_names, NEXT_COUNT);
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
	enum raw_fork_kind kind;
	enum raw_fork_mode mode;

	if (nr != SYS_fork && nr != SYS_clone && nr != SYS_clone3)
		return RAW_FORK_NONE;
	if (atomic_load_explicit(&preload_phase, memory_order_acquire) != PRELOAD_READY ||
	    !preload_proc.hdr)
		return RAW_FORK_NONE;
	/* under a filter, process_vm_readv may be what kills the process */
	if (nr == SYS_clone3 && seccomp_watch_filtered())
		return RAW_FORK_CLONE3_UNREAD;
	kind = raw_fork_kind(nr, a);
	if (kind == RAW_FORK_NO_PROCESS) {
		mode = RAW_FORK_NONE;
	} else if (kind == RAW_FORK_OWN_STACK) {
		mode = RAW_FORK_COUNTED_STACK;
	} else if (seccomp_watch_filtered() || !raw_fork_one_thread()) {
		mode = RAW_FORK_COUNTED;
	} else {
		fork_handler_prepare();
		mode = RAW_FORK_HANDLED;
	}
	errno = err;
	return mode;
}

/* What a clone3 that made process rc > 0 under a seccomp filter made, from
 * its arguments at args (size bytes), which the kernel has read: a copy
 * or a process on a stack of its own (counted as RAW_FORK_COUNTED and
 * RAW_FORK_COUNTED_STACK are), or none (CLONE_VM, or arguments too short
 * to tell). */
static enum raw_fork_mode raw_fork_clone3_made(long args, long size, long rc)
{
	const struct clone_args *ca = (const struct clone_args *)args;

	if (rc <= 0 || !args || size < CLONE_ARGS_SIZE_VER0)
		return RAW_FORK_NONE;
	switch (raw_fork_clone_kind(ca->flags, ca->stack)) {
	case RAW_FORK_COPY:
		return RAW_FORK_COUNTED;
	case RAW_FORK_OWN_STACK:
		return RAW_FORK_COUNTED_STACK;
	default:
		return RAW_FORK_NONE;
	}
}

void raw_fork_after(enum raw_fork_mode mode, const long a[6], long rc)
{
	struct session_proc_header *h = preload_proc.hdr;
	int err = errno;

	if (mode == RAW_FORK_CLONE3_UNREAD)
		mode = raw_fork_clone3_made(a[0], a[1], rc);
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
		fork_note_child(0);
	} else if (mode == RAW_FORK_COUNTED_STACK && rc > 0 && h) {
		atomic_fetch_add(&h->children_own_stack, 1);
		fork_note_child(0);
	}
	errno = err;
}

PRELOAD_API int clone(int (*fn)(void *), void *stack, int flags, void *arg, ...)
{
	int (*next)(int (*)(void *), void *, int, void *, ...) =
		(int (*)(int (*)(void *), void *, int, void *, ...))next_sym(next_slots, next_names,
									 NEXT_CLONE);
	struct session_proc_header *h;
	pid_t *parent_tid, *child_tid;
	void *tls;
	va_list ap;
	int rc, err, settls;

	/* the C library's reads these only when flags ask for them */
	va_start(ap, arg);
	parent_tid = va_arg(ap, pid_t *);
	tls = va_arg(ap, void *);
	child_tid = va_arg(ap, pid_t *);
	va_end(ap);
	if (!next) {
		errno = ENOSYS;
		return -1;
	}
	settls = thread_pointer_settls_begin((unsigned long)flags);
	rc = next(fn, stack, flags, arg, parent_tid, tls, child_tid);
	err = errno;
	thread_pointer_settls_end(settls);
	h = preload_proc.hdr;
	if (rc > 0 && !(flags & CLONE_VM) && h &&
	    atomic_load_explicit(&preload_phase, memory_order_acquire) == PRELOAD_READY) {
		atomic_fetch_add(&h->children_own_stack, 1);
		fork_note_child(0);
	}
	errno = err;
	return rc;
}
