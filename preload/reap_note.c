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
 * status there before lowering the count.  Arguments, return values, errno,
 * blocking and cancellation are the C library's: a status pointer is read
 * only after a successful call wrote it, and waitid without an infop is
 * given one of the wrapper's own.  The count is lowered however the call
 * ends: a thread cancelled inside it (pthread_cancel) lowers it as the
 * cancellation unwinds through the wrapper (REAP_NOTE_SCOPE).  The C
 * library's own reaping (system(), pclose()) is noted by
 * preload/reap_call.c through this file's writer; a program's own system
 * calls are not seen.  Never calls malloc, takes no lock, and is safe in a
 * signal handler.
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

#include "preload/exported.h"
#include "preload/next_sym.h"
#include "preload/process.h"
#include "preload/reap_note.h"
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

/* Before a call: it counts as in progress (the launcher waits for its
 * note).  Returns the table to give reap_note_leave. */
struct session_reaps *reap_note_enter(void)
{
	struct session_reaps *t = reap_table();

	if (t)
		atomic_fetch_add(&t->waiting, 1);
	return t;
}

/* After a call.  Not in a table that is no longer the image's: a fork
 * child made by a signal handler that interrupted the call has unmapped
 * its parent's file. */
void reap_note_leave(struct session_reaps *t)
{
	if (t && t == reap_table())
		atomic_fetch_sub(&t->waiting, 1);
}

void reap_note_scope_end(struct session_reaps **t)
{
	reap_note_leave(*t);
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
	clock_gettime(CLOCK_MONOTONIC, &now);
	k = atomic_fetch_add(&t->count, 1);
	e = &t->entry[k % SESSION_REAP_ENTRIES];
	atomic_store_explicit(&e->tag, 0, memory_order_relaxed);
	atomic_thread_fence(memory_order_release);
	/* the launcher's pid of it is this one in the launcher's namespace */
	e->pid = preload_proc.view.same_ns != 0 ? (uint32_t)ns_pid : 0;
	e->ns_pid = (uint32_t)ns_pid;
	e->status = status;
	e->mono_ns = (uint64_t)now.tv_sec * UINT64_C(1000000000) + (uint64_t)now.tv_nsec;
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

/* One call of a wait-status function: the table it counts in and the
 * status pointer it is given (the caller's, or own_status when the caller
 * gave none, so that the status can be noted). */
struct reap_call {
	struct session_reaps *table;
	int *status;
	int own_status;
};

/* Ends call's count when its variable's scope ends (REAP_NOTE_SCOPE). */
static void reap_call_scope_end(struct reap_call *call)
{
	reap_note_leave(call->table);
}

#define REAP_CALL struct reap_call __attribute__((cleanup(reap_call_scope_end)))

/* Before the call: counts it (until call's scope ends) and sets the status
 * pointer it is to be given. */
static void reap_call_begin(struct reap_call *call, int *status)
{
	call->table = reap_note_enter();
	call->own_status = 0;
	call->status = status ? status : &call->own_status;
}

/* After the call, which returned r: notes it, keeping its errno; returns r. */
static pid_t reap_call_end(struct reap_call *call, pid_t r)
{
	int err = errno;

	reap_note_status(call->table, r, call->status);
	errno = err;
	return r;
}

PRELOAD_API pid_t wait(int *status)
{
	pid_t (*fn)(int *) = (pid_t (*)(int *))next_fn(NEXT_WAIT);
	REAP_CALL call;

	if (!fn) {
		errno = ENOSYS;
		return -1;
	}
	reap_call_begin(&call, status);
	return reap_call_end(&call, fn(call.status));
}

PRELOAD_API pid_t waitpid(pid_t pid, int *status, int options)
{
	pid_t (*fn)(pid_t, int *, int) = (pid_t (*)(pid_t, int *, int))next_fn(NEXT_WAITPID);
	REAP_CALL call;

	if (!fn) {
		errno = ENOSYS;
		return -1;
	}
	reap_call_begin(&call, status);
	return reap_call_end(&call, fn(pid, call.status, options));
}

PRELOAD_API pid_t wait3(int *status, int options, struct rusage *usage)
{
	pid_t (*fn)(int *, int, struct rusage *) =
		(pid_t (*)(int *, int, struct rusage *))next_fn(NEXT_WAIT3);
	REAP_CALL call;

	if (!fn) {
		errno = ENOSYS;
		return -1;
	}
	reap_call_begin(&call, status);
	return reap_call_end(&call, fn(call.status, options, usage));
}

PRELOAD_API pid_t wait4(pid_t pid, int *status, int options, struct rusage *usage)
{
	pid_t (*fn)(pid_t, int *, int, struct rusage *) =
		(pid_t (*)(pid_t, int *, int, struct rusage *))next_fn(NEXT_WAIT4);
	REAP_CALL call;

	if (!fn) {
		errno = ENOSYS;
		return -1;
	}
	reap_call_begin(&call, status);
	return reap_call_end(&call, fn(pid, call.status, options, usage));
}

PRELOAD_API int waitid(idtype_t idtype, id_t id, siginfo_t *info, int options)
{
	int (*fn)(idtype_t, id_t, siginfo_t *, int) =
		(int (*)(idtype_t, id_t, siginfo_t *, int))next_fn(NEXT_WAITID);
	siginfo_t own;
	int rc, err;

	if (!fn) {
		errno = ENOSYS;
		return -1;
	}
	if (!info) {
		memset(&own, 0, sizeof(own));
		info = &own;
	}
	REAP_NOTE_SCOPE t = reap_note_enter();
	rc = fn(idtype, id, info, options);
	err = errno;
	if (rc == 0)
		reap_note_info(t, info);
	errno = err;
	return rc;
}
