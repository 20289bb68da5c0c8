/*
 * preload/reap_note.c - notes how the children this image reaps ended, in
 * its process file's reap table (trace/session.h), for the launcher.
 *
 * A child that ends by a signal (or a raw exit system call) leaves no exit
 * note, and the launcher can read its status only while it is a zombie: a
 * shell, Python's subprocess or make reaps it at once, so without this note
 * such a child's report could not tell SIGKILL from an exit.  Wraps wait, waitpid, wait3,
 * wait4 and waitid: each raises the table's waiting count, calls the C
 * library's function with the same arguments, and when the call reaped or
 * looked at (WNOWAIT) a child that exited or was killed, writes its pid and
 * status there before lowering the count.  The count is a waiter entry
 * holding the calling thread's id, so that a thread cancelled inside the
 * call (pthread_cancel), which never returns to lower it, leaves an entry
 * the launcher sees is no longer any thread's; only when every entry is
 * taken is it the table's plain waiting count.  Arguments, return values,
 * errno, blocking and cancellation are the C library's: the call is given
 * status, rusage and siginfo buffers of the wrapper's own, copied out to the
 * program's after the child is noted (preload/wait_copy.c), so that a call
 * whose pointer the kernel cannot write, which reaps the child and fails
 * with EFAULT, still notes it and still fails with EFAULT.  On an alternate
 * signal stack with too little left for this (REAP_NOTE_STACK_BYTES), a
 * call is passed on unnoted, with a few words of stack more than the C
 * library's alone.  The C library's own reaping
 * (system(), pclose()) is noted by preload/reap_call.c through this file's
 * writer; a program's own system calls are not seen.  Never calls malloc,
 * takes no lock, and is safe in a signal handler.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>

#include "preload/clock.h"
#include "preload/exported.h"
#include "preload/init.h"
#include "preload/launcher_alive.h"
#include "preload/next_sym.h"
#include "preload/process.h"
#include "preload/reap_note.h"
#include "preload/sys.h"
#include "preload/thread_pointer.h"
#include "preload/timens.h"
#include "preload/seccomp_watch.h"
#include "preload/stack_room.h"
#include "preload/wait.h"
#include "preload/wait_copy.h"
#include "trace/session.h"

/* The next definitions, looked up at the recorder's start
 * (reap_note_resolve), so that a first call from a signal handler or a
 * vfork child does not run dlsym. */
enum { NEXT_WAIT, NEXT_WAITPID, NEXT_WAIT3, NEXT_WAIT4, NEXT_WAITID, NEXT_COUNT };
static const char *const next_names[NEXT_COUNT] = {
	"wait", "waitpid", "wait3", "wait4", "waitid",
};
static void *volatile next_slots[NEXT_COUNT];

static void *next_fn(int which)
{
	return next_sym(next_slots, next_names, which);
}

void reap_note_resolve(void)
{
	next_sym_resolve(next_slots, next_names, NEXT_COUNT);
}

/* The image's reap table, or NULL when it records nothing. */
static struct session_reaps *reap_table(void)
{
	struct session_proc_header *h = preload_proc.hdr;

	return h ? session_reaps_at(h) : NULL;
}

void reap_note_enter(struct reap_wait *w)
{
	struct session_reaps *t = reap_table();
	uint32_t tid;

	w->table = t;
	w->waiter = -1;
	w->tid = 0;
	if (!t)
		return;
	tid = (uint32_t)preload_tid();
	for (unsigned i = 0; i < SESSION_REAP_WAITERS; i++) {
		uint32_t free_tid = 0;

		if (atomic_load_explicit(&t->waiter[i], memory_order_relaxed) == 0 &&
		    atomic_compare_exchange_strong(&t->waiter[i], &free_tid, tid)) {
			w->waiter = (int)i;
			w->tid = tid;
			return;
		}
	}
	atomic_fetch_add(&t->waiting, 1);
}

/* Not in a table that is no longer the image's: a fork child made by a
 * signal handler that interrupted the call has unmapped its parent's file.
 * The entry is freed only while it is still the thread's own. */
void reap_note_leave(const struct reap_wait *w)
{
	struct session_reaps *t = w->table;
	uint32_t tid = w->tid;

	if (!t || t != reap_table())
		return;
	if (w->waiter < 0)
		atomic_fetch_sub(&t->waiting, 1);
	else
		atomic_compare_exchange_strong(&t->waiter[w->waiter], &tid, 0);
}

/* How long a writer waits for the launcher to take the entry its own
 * would overwrite, and how often it sleeps meanwhile (trace/session.h). */
#define REAP_ROOM_WAIT_NS 5000000000ll
#define REAP_ROOM_NAP_NS 50000l
#define REAP_ROOM_CHECK_NAPS 200u /* the clock and the launcher: every 10 ms or more */

/* Set once a wait for room lasted REAP_ROOM_WAIT_NS: the launcher is not
 * taking this image's entries, and later writers overwrite at once. */
static _Atomic int reap_room_given_up;

/* Waits until entry k's place in t is free: the launcher has taken the
 * entry SESSION_REAP_ENTRIES before it.  A burst of children reaped faster
 * than the launcher's rounds would otherwise overwrite the ends of the
 * first ones.  Gives up when the launcher is gone or after
 * REAP_ROOM_WAIT_NS; errno is kept. */
static void reap_note_wait_room(struct session_reaps *t, uint64_t k, const struct timespec *now)
{
	struct timespec nap = { 0, REAP_ROOM_NAP_NS }, later;
	int err = errno;

	for (unsigned naps = 1;
	     (uint32_t)k - atomic_load_explicit(&t->taken, memory_order_acquire) >=
	     SESSION_REAP_ENTRIES;
	     naps++) {
		if (atomic_load_explicit(&reap_room_given_up, memory_order_relaxed))
			break;
		if (naps == 1)
			preload_launcher_wake(); /* it may be in a long idle wait */
		if (naps % REAP_ROOM_CHECK_NAPS == 0) {
			preload_clock_gettime(CLOCK_MONOTONIC, &later);
			if ((later.tv_sec - now->tv_sec) * 1000000000ll +
				    (later.tv_nsec - now->tv_nsec) >= REAP_ROOM_WAIT_NS) {
				atomic_store_explicit(&reap_room_given_up, 1, memory_order_relaxed);
				break;
			}
			if (!preload_launcher_alive())
				break;
		}
		preload_nap(&nap);
	}
	errno = err;
}

/* Writes the entry of child ns_pid (0: a call entry of a call begun at
 * start_ns), which ended with wait status status. */
static void reap_note_put(struct session_reaps *t, pid_t ns_pid, uint64_t start_ns, int status)
{
	struct timespec now = { 0, 0 };
	struct session_reap *e;
	uint64_t k;

	if (!t || t != reap_table())
		return;
	preload_clock_gettime(CLOCK_MONOTONIC, &now);
	k = atomic_fetch_add(&t->count, 1);
	reap_note_wait_room(t, k, &now);
	e = &t->entry[k % SESSION_REAP_ENTRIES];
	atomic_store_explicit(&e->tag, 0, memory_order_relaxed);
	atomic_thread_fence(memory_order_release);
	/* the launcher's pid of it is this one in the launcher's namespace */
	e->pid = preload_proc.view.same_ns != 0 ? (uint32_t)ns_pid : 0;
	e->ns_pid = (uint32_t)ns_pid;
	e->status = status;
	e->mono_ns = timens_launcher_ns(&now);
	e->call_start_ns = start_ns;
	atomic_store_explicit(&e->tag, k + 1, memory_order_release);
}

/* Writes the entry of child ns_pid, which ended with wait status status. */
static void reap_note_write(struct session_reaps *t, pid_t ns_pid, int status)
{
	if (ns_pid > 0)
		reap_note_put(t, ns_pid, 0, status);
}

void reap_note_call(struct session_reaps *t, uint64_t start_ns, int status)
{
	int err = errno;

	if (start_ns && (WIFEXITED(status) || WIFSIGNALED(status)))
		reap_note_put(t, 0, start_ns, status);
	errno = err;
}

/* Notes what a wait-status call returned: a child that exited or was
 * killed (not one stopped or continued). */
static void reap_note_status(struct session_reaps *t, pid_t r, const int *status)
{
	if (r > 0 && status && (WIFEXITED(*status) || WIFSIGNALED(*status)))
		reap_note_write(t, r, *status);
}

/* Notes what waitid returned in info (si_pid 0: WNOHANG found none). */
static void reap_note_info(struct session_reaps *t, const siginfo_t *info)
{
	int st = info->si_status;

	if (info->si_signo != SIGCHLD || info->si_pid <= 0)
		return;
	if (info->si_code == CLD_EXITED)
		reap_note_write(t, info->si_pid, (st & 0xff) << 8);
	else if (info->si_code == CLD_KILLED)
		reap_note_write(t, info->si_pid, st & 0x7f);
	else if (info->si_code == CLD_DUMPED)
		reap_note_write(t, info->si_pid, (st & 0x7f) | 0x80);
}

/* One call of a wait-status function: its count, the status and rusage
 * pointers the C library is given (the wrapper's own, so that a child
 * reaped by a call whose own copy out fails is still noted), and the
 * program's, copied out to afterwards.  Under a seccomp filter, where the
 * question wait_copy asks may kill the process, the program's own are
 * given (own_status when it gave none) and nothing is copied. */
struct reap_call {
	struct reap_wait wait;
	int *call_status;
	struct rusage *call_usage;
	int *status;          /* the program's, to copy out to; NULL: none */
	struct rusage *usage; /* likewise */
	int copy_out;
	int own_status;
	struct rusage own_usage;
};

/* Before the call: counts it and sets the pointers it is to be given. */
static void reap_call_begin(struct reap_call *call, int *status, struct rusage *usage)
{
	reap_note_enter(&call->wait);
	call->own_status = 0;
	call->status = status;
	call->usage = usage;
	call->copy_out = !seccomp_watch_filtered();
	if (call->copy_out) {
		call->call_status = &call->own_status;
		call->call_usage = usage ? &call->own_usage : NULL;
	} else {
		call->call_status = status ? status : &call->own_status;
		call->call_usage = usage;
	}
}

/* Copies a call's status, then its rusage, out to the program's pointers,
 * as the kernel writes them: -1 with errno EFAULT when one cannot be. */
static int reap_call_copy_out(const struct reap_call *call)
{
	if (call->status && wait_copy_status(call->status, call->own_status) != 0)
		return -1;
	if (call->usage && wait_copy_usage(call->usage, &call->own_usage) != 0)
		return -1;
	return 0;
}

/* After the call, which returned r: notes it, copies out and ends its
 * count; returns r, or -1 with errno EFAULT (the child reaped) as the
 * kernel's own copy out would have. */
static pid_t reap_call_end(struct reap_call *call, pid_t r)
{
	int err = errno;

	reap_note_status(call->wait.table, r, call->call_status);
	if (r > 0 && call->copy_out && reap_call_copy_out(call) != 0) {
		r = -1;
		err = EFAULT;
	}
	reap_note_leave(&call->wait);
	errno = err;
	return r;
}

/* The stack a noted call needs, with room to spare (its buffers and the
 * clock's, some hundred bytes): on an alternate signal stack with less
 * left, the call is only passed on and its child not noted. */
#define REAP_NOTE_STACK_BYTES 2048u

/* Whether a call is only passed on: on a thread pointer of the program's
 * own, or with too little stack left. */
static int reap_call_passed(void)
{
	return !thread_pointer_is_libc() || stack_room_bytes() < REAP_NOTE_STACK_BYTES;
}

typedef pid_t (*wait_fn)(int *);
typedef pid_t (*waitpid_fn)(pid_t, int *, int);
typedef pid_t (*wait3_fn)(int *, int, struct rusage *);
typedef pid_t (*wait4_fn)(pid_t, int *, int, struct rusage *);
typedef int (*waitid_fn)(idtype_t, id_t, siginfo_t *, int);

/* The noted calls: not inlined, so that a passed-on call's frame is a few
 * words. */
static __attribute__((noinline)) pid_t wait_noted(wait_fn fn, int *status)
{
	struct reap_call call;

	reap_call_begin(&call, status, NULL);
	return reap_call_end(&call, fn(call.call_status));
}

static __attribute__((noinline)) pid_t waitpid_noted(waitpid_fn fn, pid_t pid, int *status,
						     int options)
{
	struct reap_call call;

	reap_call_begin(&call, status, NULL);
	return reap_call_end(&call, fn(pid, call.call_status, options));
}

static __attribute__((noinline)) pid_t wait3_noted(wait3_fn fn, int *status, int options,
						   struct rusage *usage)
{
	struct reap_call call;

	reap_call_begin(&call, status, usage);
	return reap_call_end(&call, fn(call.call_status, options, call.call_usage));
}

static __attribute__((noinline)) pid_t wait4_noted(wait4_fn fn, pid_t pid, int *status,
						   int options, struct rusage *usage)
{
	struct reap_call call;

	reap_call_begin(&call, status, usage);
	return reap_call_end(&call, fn(pid, call.call_status, options, call.call_usage));
}

static __attribute__((noinline)) int waitid_noted(waitid_fn fn, idtype_t idtype, id_t id,
						  siginfo_t *info, int options)
{
	struct reap_wait w;
	siginfo_t own, *call_info = info;
	int rc, err;

	/* the wrapper's own, copied out afterwards, as in reap_call_begin */
	if (!info || !seccomp_watch_filtered()) {
		memset(&own, 0, sizeof(own));
		call_info = &own;
	}
	reap_note_enter(&w);
	rc = fn(idtype, id, call_info, options);
	err = errno;
	if (rc == 0)
		reap_note_info(w.table, call_info);
	if (rc == 0 && info && call_info == &own && wait_copy_info(info, &own) != 0) {
		rc = -1;
		err = EFAULT;
	}
	reap_note_leave(&w);
	errno = err;
	return rc;
}

PRELOAD_API pid_t wait(int *status)
{
	wait_fn fn = (wait_fn)next_fn(NEXT_WAIT);

	if (!fn) {
		errno = ENOSYS;
		return -1;
	}
	if (reap_call_passed())
		return fn(status);
	return wait_noted(fn, status);
}

PRELOAD_API pid_t waitpid(pid_t pid, int *status, int options)
{
	waitpid_fn fn = (waitpid_fn)next_fn(NEXT_WAITPID);

	if (!fn) {
		errno = ENOSYS;
		return -1;
	}
	if (reap_call_passed())
		return fn(pid, status, options);
	return waitpid_noted(fn, pid, status, options);
}

PRELOAD_API pid_t wait3(int *status, int options, struct rusage *usage)
{
	wait3_fn fn = (wait3_fn)next_fn(NEXT_WAIT3);

	if (!fn) {
		errno = ENOSYS;
		return -1;
	}
	if (reap_call_passed())
		return fn(status, options, usage);
	return wait3_noted(fn, status, options, usage);
}

PRELOAD_API pid_t wait4(pid_t pid, int *status, int options, struct rusage *usage)
{
	wait4_fn fn = (wait4_fn)next_fn(NEXT_WAIT4);

	if (!fn) {
		errno = ENOSYS;
		return -1;
	}
	if (reap_call_passed())
		return fn(pid, status, options, usage);
	return wait4_noted(fn, pid, status, options, usage);
}

PRELOAD_API int waitid(idtype_t idtype, id_t id, siginfo_t *info, int options)
{
	waitid_fn fn = (waitid_fn)next_fn(NEXT_WAITID);

	if (!fn) {
		errno = ENOSYS;
		return -1;
	}
	if (reap_call_passed())
		return fn(idtype, id, info, options);
	return waitid_noted(fn, idtype, id, info, options);
}
