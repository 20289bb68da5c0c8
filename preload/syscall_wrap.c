/*
 * preload/syscall_wrap.c - the exported syscall(2), made here, so that the
 * recorder sees the system calls it must know of when a program makes them
 * through syscall() rather than their C library functions: a seccomp
 * filter installed (syscall(SYS_seccomp), as libseccomp does, or
 * SYS_prctl's PR_SET_SECCOMP;
 * preload/seccomp_watch.h) and a lowered RLIMIT_AS (SYS_setrlimit,
 * SYS_prlimit64; preload/rlimit.h), a lock of all memory (SYS_mlockall;
 * preload/mlock_watch.h), a ban on the time-stamp counter (SYS_prctl's
 * PR_SET_TSC; preload/ring.h), a call that may drop or unmap stack pages
 * (preload/drop_watch.h), a fork-like clone, whose child
 * is recorded as a fork child's (preload/raw_fork.h), an exec of the image
 * (SYS_execve, SYS_execveat: preload/exec_watch.h) and its end by
 * SYS_exit_group, which write what the exec and _exit wrappers write, so
 * the launcher does not take an exec for an exit nor miss the exit note.  In a thread on a
 * thread pointer of its own (preload/thread_pointer.h) it is the C
 * library's syscall() and no more.  A system call instruction of the
 * program's own (Go's runtime) is not seen.
 *
 * Owns the exported syscall.  Never calls malloc; changes no argument,
 * return value or errno, but the old action rt_sigaction reads back when
 * it is mprof's handler of the toggle signal, which reads as SIG_DFL
 * (preload/toggle_signal.h).  The next definition is not looked up (dlsym may
 * allocate, and the recorder makes system calls of its own through it).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "preload/drop_watch.h"
#include "preload/exec_watch.h"
#include "preload/exit_note.h"
#include "preload/exported.h"
#include "preload/mlock_watch.h"
#include "preload/own_read.h"
#include "preload/raw_fork.h"
#include "preload/ring.h"
#include "preload/rlimit.h"
#include "preload/seccomp_watch.h"
#include "preload/stack_scrub.h"
#include "preload/thread_pointer.h"
#include "preload/toggle_signal.h"

#if defined(__x86_64__)
/* The system call nr with six arguments: what the kernel returns (-4095 to
 * -1: an error number, negated). */
static unsigned long syscall_wrap_kernel(long nr, const long a[6])
{
	register long r10 __asm__("r10") = a[3];
	register long r8 __asm__("r8") = a[4];
	register long r9 __asm__("r9") = a[5];
	unsigned long rc;

	__asm__ volatile("syscall"
			 : "=a"(rc)
			 : "0"(nr), "D"(a[0]), "S"(a[1]), "d"(a[2]), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return rc;
}

/* The system call nr with six arguments, as the C library's syscall() makes
 * it: the kernel's result, or -1 with errno set. */
static long syscall_wrap_raw(long nr, const long a[6])
{
	unsigned long rc = syscall_wrap_kernel(nr, a);

	if (rc > -4096ul) {
		errno = (int)-rc;
		return -1;
	}
	return (long)rc;
}

/* The same as the C library's syscall() makes it in any thread, the C
 * library's or one on a thread pointer of its own (preload/thread_pointer.h):
 * errno at its offset from the thread pointer, and nothing else of the
 * recorder's.  Needs thread_pointer_errno_offset. */
static long syscall_wrap_foreign_tls(long nr, const long a[6])
{
	unsigned long rc = syscall_wrap_kernel(nr, a);

	if (rc > -4096ul) {
		thread_pointer_set_errno((int)-rc);
		return -1;
	}
	return (long)rc;
}

/* Before rt_sigaction(a[0], a[1], a[2], ...): the new action is the
 * kernel's struct (handler, then flags); sig taken as sigaction takes it,
 * but SIG_DFL replaces mprof's handler (the call is not changed). */
static void syscall_wrap_toggle_before(const long a[6], struct toggle_signal_call *call)
{
	unsigned long k[2];
	struct sigaction act;

	call->keep = 0;
	call->masked = 0;
	if (a[0] <= 0 || a[0] != atomic_load_explicit(&toggle_signal_ours, memory_order_relaxed))
		return;
	/* an address the kernel refuses with EFAULT is left to it */
	if (own_read(k, (const void *)a[1], sizeof(k)) != 0)
		return;
	memset(&act, 0, sizeof(act));
	act.sa_handler = (__sighandler_t)k[0];
	act.sa_flags = (int)k[1];
	if (!(act.sa_flags & SA_SIGINFO) && act.sa_handler == SIG_DFL)
		act.sa_flags |= SA_SIGINFO; /* not kept: taken, as a handler is */
	toggle_signal_before((int)a[0], &act, call);
}

/* rt_sigaction(a[0], a[1], a[2], a[3]) through syscall(2), its toggle
 * signal's new action seen before and its old action read as the program
 * would see it.  Out of line: its locals (a sigaction, a signal mask) must
 * not weigh on the frame of every syscall(), which the recorder makes on
 * the program's stack (a coroutine's may be small). */
__attribute__((noinline, cold)) static long syscall_wrap_rt_sigaction(const long a[6])
{
	struct toggle_signal_call toggle = { .keep = 0, .masked = 0 };
	long rc;

	if (a[1])
		syscall_wrap_toggle_before(a, &toggle);
	rc = syscall_wrap_raw(SYS_rt_sigaction, a);
	toggle_signal_after(&toggle);
	if (rc == 0 && a[0] > 0 &&
	    a[0] == atomic_load_explicit(&toggle_signal_ours, memory_order_relaxed))
		toggle_signal_seen_kernel((unsigned long *)a[2], (unsigned long)a[3]);
	return rc;
}

/* Whether the recorder must see system call nr (see the file's head). */
static int syscall_wrap_watched(long nr)
{
	return nr == SYS_rt_sigaction || nr == SYS_seccomp || nr == SYS_setrlimit ||
	       nr == SYS_prlimit64 || nr == SYS_fork || nr == SYS_clone || nr == SYS_clone3 ||
	       nr == SYS_mlockall || nr == SYS_prctl || nr == SYS_execve || nr == SYS_execveat ||
	       nr == SYS_exit_group;
}

/* An execve (path a[0], argv a[1], envp a[2]) or execveat (path a[1],
 * argv a[2], envp a[3]), noted before (exec_watch_raw_before) and taken
 * back when it fails. */
__attribute__((noinline, cold)) static long syscall_wrap_exec(long nr, const long a[6])
{
	int at = nr == SYS_execveat;
	int noted = exec_watch_raw_before((const char *)a[at], (char *const *)a[at + 1],
					  (char *const *)a[at + 2]);
	long rc = syscall_wrap_raw(nr, a);

	exec_watch_raw_after(noted);
	return rc;
}

/* A watched system call nr (syscall_wrap_watched) with six arguments. */
static long syscall_wrap_watched_call(long nr, const long a[6])
{
	long rc;
	int install, mlock_rc;
	enum raw_fork_mode fork_mode;

	if (__builtin_expect(!thread_pointer_is_libc(), 0))
		return syscall_wrap_foreign_tls(nr, a);
	if (nr == SYS_rt_sigaction)
		return syscall_wrap_rt_sigaction(a);
	if (nr == SYS_execve || nr == SYS_execveat)
		return syscall_wrap_exec(nr, a);
	if (nr == SYS_exit_group)
		exit_note_before_exit_call((int)a[0]);
	install = (nr == SYS_seccomp &&
		   (a[0] == SECCOMP_SET_MODE_FILTER || a[0] == SECCOMP_SET_MODE_STRICT)) ||
		  (nr == SYS_prctl && a[0] == PR_SET_SECCOMP);
	if (install)
		seccomp_watch_before();
	if (nr == SYS_mlockall && mlock_watch_call((int)a[0], &mlock_rc))
		return mlock_rc;
	if (nr == SYS_prctl && a[0] == PR_SET_TSC && a[1] != PR_TSC_ENABLE)
		ring_clock_use_coarse(1);
	fork_mode = raw_fork_before(nr, a);
	rc = syscall_wrap_raw(nr, a);
	raw_fork_after(fork_mode, a, rc);
	if (install)
		seccomp_watch_after(rc, nr == SYS_seccomp ? a[0] == SECCOMP_SET_MODE_STRICT
							  : a[1] == SECCOMP_MODE_STRICT);
	if (nr == SYS_setrlimit || nr == SYS_prlimit64)
		rlimit_after_syscall(nr, a, rc);
	return rc;
}

/* A clone system call: a child on a thread pointer of its own is counted
 * while it may run (thread_pointer_settls_begin; clone3's flags are in
 * memory the recorder may not read under a filter: counted as one whose
 * child runs on).  The child, back here with 0, undoes nothing. */
static long syscall_wrap_clone(long nr, const long a[6])
{
	unsigned long flags = nr == SYS_clone ? (unsigned long)a[0] : CLONE_SETTLS | CLONE_VM;
	int settls = thread_pointer_settls_begin(flags);
	long rc = syscall_wrap_watched_call(nr, a);

	if (rc != 0)
		thread_pointer_settls_end(settls);
	return rc;
}

/* syscall(2): a few comparisons more than the C library's for every call.
 * A call the recorder need not see is the C library's whatever the thread
 * pointer (errno at its offset from it, as the C library writes it), so
 * only the watched ones ask whether it is the C library's. */
PRELOAD_API long syscall(long nr, ...)
{
	long a[6];
	va_list ap;

	va_start(ap, nr);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (!syscall_wrap_watched(nr)) {
		long rc = thread_pointer_errno_offset ? syscall_wrap_foreign_tls(nr, a)
						      : syscall_wrap_raw(nr, a);

		if (drop_watch_syscall(nr, a))
			stack_scrub_forget();
		return rc;
	}
	if (nr == SYS_clone || nr == SYS_clone3)
		return syscall_wrap_clone(nr, a);
	return syscall_wrap_watched_call(nr, a);
}
#endif
