/*
 * preload/seccomp_watch.c - knowing whether the process runs under a
 * seccomp filter without asking the kernel once a filter may be there.
 *
 * A sandbox may kill the process for any system call it did not expect:
 * Chromium's policies kill on prctl options they do not know, so
 * prctl(PR_GET_SECCOMP) itself is not safe to ask at exit or fork.  The
 * recorder learns it instead: the Seccomp field of /proc/self/status read
 * once at the start (a filter inherited from the parent; no filter of the
 * program's own can be there yet), and wrappers of prctl(PR_SET_SECCOMP)
 * and syscall(SYS_seccomp) (glibc has no seccomp(); libseccomp calls
 * syscall(), wrapped in preload/syscall_wrap.c) that note a filter the
 * program installs.  Before the install
 * the wrappers take the sequence counter from its owner (preload/seq.h),
 * while membarrier() still works: a filter may refuse it later.  A filter
 * installed by the program's own system call instruction is not seen.  The
 * note is process-wide: a filter of one thread counts for all of them.
 *
 * The prctl wrapper also sees prctl(PR_SET_TSC), after which reading the
 * time-stamp counter that times events may be a SIGSEGV (preload/ring.h).
 *
 * Owns seccomp_watch_state and the exported prctl.  Never calls malloc;
 * the wrappers change no argument, return value or errno.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <linux/seccomp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload/diag.h"
#include "preload/exit_note.h"
#include "preload/exported.h"
#include "preload/mem.h"
#include "preload/ring.h"
#include "preload/seccomp_watch.h"
#include "preload/seq.h"
#include "preload/sys.h"
#include "preload/thread.h"
#include "preload/thread_id.h"
#include "preload/unwind.h"

#define SECCOMP_WATCH_STATUS_BYTES 4096u

/* The recorder's memory made ready before a filter is installed, which may
 * kill mmap: address space only until touched, never given back. */
#define SECCOMP_WATCH_READY_BYTES (256u << 20)

/* 1 once a filter (or strict mode) may be in force. */
static _Atomic int seccomp_watch_state;

/* The C library's prctl, looked up at the start; NULL before. */
static int (*_Atomic seccomp_watch_next_prctl)(int, unsigned long, unsigned long, unsigned long,
					       unsigned long);

/* The number after "Seccomp:" in a /proc/self/status text, or 0. */
static int seccomp_watch_status_mode(const char *text)
{
	const char *p = strstr(text, "\nSeccomp:");

	if (!p)
		return 0;
	p += strlen("\nSeccomp:");
	while (*p == ' ' || *p == '\t')
		p++;
	return *p >= '1' && *p <= '9';
}

void seccomp_watch_start(void)
{
	char status[SECCOMP_WATCH_STATUS_BYTES];
	ssize_t n = sys_read_file("/proc/self/status", status, sizeof(status) - 1);

	atomic_store(&seccomp_watch_next_prctl, dlsym(RTLD_NEXT, "prctl"));
	if (n <= 0)
		return;
	status[n] = '\0';
	if (seccomp_watch_status_mode(status))
		atomic_store(&seccomp_watch_state, 1);
}

int seccomp_watch_filtered(void)
{
	return atomic_load_explicit(&seccomp_watch_state, memory_order_relaxed);
}

static void seccomp_watch_strict_entered(void);

void seccomp_watch_before(void)
{
	/* the last moment /proc/self/stat can surely be opened */
	exit_note_keep_arg_bounds();
	unwind_keep_before_filter();
	thread_id_keep_before_filter();
	seq_disown();
	preload_mem_prepare(SECCOMP_WATCH_READY_BYTES);
	/* a filter may kill the mprotect a thread's claim would make */
	thread_rings_unseal_all();
}

void seccomp_watch_after(long rc, int strict)
{
	if (rc < 0)
		return;
	atomic_store(&seccomp_watch_state, 1);
	if (strict)
		seccomp_watch_strict_entered();
}

/* The calling thread is in strict mode: any system call but read, write,
 * exit and sigreturn kills the process, and recording one more call may
 * map memory.  The thread stays inside the shim for good, so its calls take
 * the unrecorded path (counted, preload/fallback.c); other threads record
 * on. */
static void seccomp_watch_strict_entered(void)
{
	struct preload_thread *t = preload_tls;

	if ((uintptr_t)t > (uintptr_t)THREAD_SETTING_UP)
		t->busy = 1;
	else
		preload_tls = THREAD_SETTING_UP;
	diag_note(TRACE_DIAG_INFO, "a thread entered seccomp strict mode (only read, write and "
				   "exit allowed): its later allocator calls are counted as "
				   "unrecorded, not recorded");
}

PRELOAD_API int prctl(int option, ...)
{
	int (*next)(int, unsigned long, unsigned long, unsigned long, unsigned long);
	unsigned long a[4];
	va_list ap;
	int rc;

	va_start(ap, option);
	for (int i = 0; i < 4; i++)
		a[i] = va_arg(ap, unsigned long);
	va_end(ap);
	if (option == PR_SET_SECCOMP)
		seccomp_watch_before();
	if (option == PR_SET_TSC && a[0] != PR_TSC_ENABLE)
		ring_clock_use_coarse(1);
	next = atomic_load(&seccomp_watch_next_prctl);
	if (next)
		rc = next(option, a[0], a[1], a[2], a[3]);
	else
		rc = (int)syscall(SYS_prctl, option, a[0], a[1], a[2], a[3]);
	if (option == PR_SET_SECCOMP) {
		int saved = errno;

		seccomp_watch_after(rc, a[0] == SECCOMP_MODE_STRICT);
		errno = saved;
	}
	return rc;
}
