/*
 * preload/rlimit.c - gives the recorder's spare address space back when the
 * program's RLIMIT_AS is lowered.
 *
 * Without a limit at its start the recorder reserves 16 GiB of address
 * space (preload/mem.c) and maps a process file of about 3 GiB
 * (preload/procfile.c); both count against RLIMIT_AS, so a program that
 * sets one later (`ulimit -v` in a shell, Python's resource.setrlimit)
 * would see its own allocations fail.  Giving back closes the
 * reservation, shrinks the nested heap's region to what the limit allows
 * and unmaps the rings of free thread slots past what it allows (a
 * 128th of it, settings.h), as a start under that limit would have had.  The
 * limit is read back with getrlimit, never from the caller's pointer.
 *
 * When: after setrlimit, setrlimit64, prlimit and prlimit64 (wrapped here:
 * each calls the next definition with the same arguments and returns its
 * result with its errno) and syscall(SYS_setrlimit or SYS_prlimit64)
 * (preload/syscall_wrap.c) set a finite RLIMIT_AS of this process; and
 * when an allocation through the C library (preload/interpose.c) or an
 * mmap or mmap64 (wrapped here) fails, which covers a limit set where no
 * wrapper sees it: by another process (prlimit --pid), a system call
 * instruction of the program's own (Go), a static helper, the C
 * library's internal calls; the failed call is then made once more.  So
 * is a pthread_create (wrapped here) that fails with EAGAIN: the C library
 * maps the new thread's stack with its internal mmap, which no wrapper
 * sees.  Other internal mappings (dlopen's segments) made between such a
 * lowering and the first failure fail as the limit says, counting the
 * recorder's reservations (dlopen is not wrapped: it looks libraries up
 * by its caller's run path).  A limit raised again gets
 * nothing back: the recorder runs on as if started under the lowest limit
 * it saw.
 *
 * Must not allocate (the next definitions are looked up at the recorder's
 * start, as exec_watch.c does, so a vfork child never runs dlsym).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload/diag.h"
#include "preload/drop_watch.h"
#include "preload/exported.h"
#include "preload/next_sym.h"
#include "preload/mem.h"
#include "preload/nested_heap.h"
#include "preload/own_call.h"
#include "preload/procfile.h"
#include "preload/process.h"
#include "preload/rlimit.h"
#include "preload/settings.h"
#include "preload/stack_scrub.h"
#include "preload/text.h"
#include "preload/thread.h"
#include "preload/thread_pointer.h"
#include "preload/unwind.h"

enum {
	NEXT_SETRLIMIT, NEXT_SETRLIMIT64, NEXT_PRLIMIT, NEXT_PRLIMIT64, NEXT_MMAP, NEXT_MMAP64,
	NEXT_PTHREAD_CREATE, NEXT_COUNT
};
static const char *const next_names[NEXT_COUNT] = {
	"setrlimit", "setrlimit64", "prlimit", "prlimit64", "mmap", "mmap64", "pthread_create",
};
static void *volatile next_slots[NEXT_COUNT];

static void *next_fn(int which)
{
	return next_sym(next_slots, next_names, which);
}

void rlimit_resolve(void)
{
	next_sym_resolve(next_slots, next_names, NEXT_COUNT);
}

/* Says in the trace what the recorder gave back the first time (a program
 * may lower its limit step by step; the first step gives the most); cause
 * begins the text and ends with the word before the limit. */
static void rlimit_note(const char *cause, uint64_t limit_bytes, uint64_t given_bytes)
{
	static _Atomic int said;
	char text[200] = "";
	char num[24];

	if (!preload_proc.hdr ||
	    atomic_load_explicit(&preload_phase, memory_order_acquire) != PRELOAD_READY ||
	    atomic_exchange(&said, 1))
		return;
	preload_text_append(text, sizeof(text), cause);
	*procfile_put_dec(num, limit_bytes >> 20) = '\0';
	preload_text_append(text, sizeof(text), num);
	preload_text_append(text, sizeof(text), " MiB: the recorder gave back ");
	*procfile_put_dec(num, given_bytes >> 20) = '\0';
	preload_text_append(text, sizeof(text), num);
	preload_text_append(text, sizeof(text), " MiB of address space and keeps ");
	*procfile_put_dec(num, preload_proc.cfg.nslots - 1) = '\0';
	preload_text_append(text, sizeof(text), num);
	preload_text_append(text, sizeof(text), " thread slots");
	diag_report(TRACE_DIAG_INFO, text);
}

/*
 * Under a finite RLIMIT_AS (read now): closes the memory reservation,
 * shrinks the nested heap's region and unmaps the rings of free thread
 * slots past 1/128 of the limit, noting in the trace what was given
 * back the first time, after cause (rlimit_note).  Returns the bytes of
 * address space given back (0 when there was nothing left to give, or in
 * a vfork child).  The caller holds none of the recorder's locks.
 */
static uint64_t rlimit_give_back(const char *cause)
{
	struct rlimit as;
	uint64_t given;

	if (getrlimit(RLIMIT_AS, &as) != 0 || as.rlim_cur == RLIM_INFINITY)
		return 0;
	/* a vfork child shares our memory but not our limit: it is about to
	 * exec, and the parent keeps what it has */
	if (preload_proc.hdr && (uint32_t)getpid() != preload_proc.view.ns_pid)
		return 0;
	given = preload_mem_reservation_close();
	given += nested_heap_shrink(as.rlim_cur);
	if (preload_proc.hdr)
		given += thread_slots_shrink(preload_settings_slots(as.rlim_cur,
								   preload_proc.cfg.ring_bytes));
	if (given)
		rlimit_note(cause, as.rlim_cur, given);
	return given;
}

/* rlimit_give_back with signals blocked, since the shrinking takes the
 * recorder's locks, which a handler's first allocation on this thread
 * would wait for.  Keeps errno. */
static uint64_t rlimit_give_back_masked(const char *cause)
{
	int saved = errno;
	struct own_call own;
	uint64_t given;

	own_call_enter(&own);
	given = rlimit_give_back(cause);
	own_call_leave(&own);
	errno = saved;
	return given;
}

void rlimit_fork_child(void)
{
	struct session_proc_header *parent_hdr = preload_proc.hdr;
	struct rlimit as;
	uint32_t slots;

	if (getrlimit(RLIMIT_AS, &as) != 0 || as.rlim_cur == RLIM_INFINITY)
		return;
	preload_mem_reservation_close();
	nested_heap_shrink(as.rlim_cur);
	slots = preload_settings_slots(as.rlim_cur, preload_proc.cfg.ring_bytes);
	if (slots < preload_proc.cfg.nslots)
		preload_proc.cfg.nslots = slots;
	if (parent_hdr && preload_proc.ring_offset < preload_proc.file_bytes &&
	    munmap((char *)parent_hdr + preload_proc.ring_offset,
		   preload_proc.file_bytes - preload_proc.ring_offset) == 0)
		preload_proc.file_bytes = preload_proc.ring_offset;
}

/*
 * After a call that set resource for pid (0: this process) and returned rc:
 * gives address space back when it set RLIMIT_AS here.  Keeps errno.  A
 * call from a handler that interrupted the recorder (which may hold its
 * locks) gives nothing back.
 */
static void rlimit_after(long rc, pid_t pid, int resource)
{
	if (rc == 0 && resource == RLIMIT_AS && (pid == 0 || pid == getpid()) &&
	    !preload_thread_nested())
		rlimit_give_back_masked("the program set RLIMIT_AS to ");
}

void rlimit_after_syscall(long nr, const long args[6], long rc)
{
	if (nr == SYS_setrlimit)
		rlimit_after(rc, 0, (int)args[0]);
	else if (nr == SYS_prlimit64 && args[2])
		rlimit_after(rc, (pid_t)args[0], (int)args[1]);
}

int rlimit_retry_worth(void)
{
	return rlimit_give_back_masked("a failed allocation or mapping found RLIMIT_AS lowered to ") != 0;
}

/*
 * mmap(2) through the next definition, or the system call before that is
 * looked up (dlsym may allocate, and allocating may map).  Both return
 * MAP_FAILED with errno set on failure.
 */
static void *rlimit_mmap_next(int which, void *addr, size_t len, int prot, int flags, int fd,
			      off_t off)
{
	void *(*fn)(void *, size_t, int, int, int, off_t) =
		__atomic_load_n(&next_slots[which], __ATOMIC_ACQUIRE);

	if (fn)
		return fn(addr, len, prot, flags, fd, off);
	return (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);
}

/* Whether a call that failed for want of address space, called from
 * caller_ip, is worth one more try: the program's own, made outside the
 * recorder's work (whose calls, a fork child's handler among them, may
 * hold the locks that giving back takes), and the recorder gave address
 * space back. */
static int rlimit_call_retry_worth(const void *caller_ip)
{
	if (atomic_load_explicit(&preload_phase, memory_order_acquire) != PRELOAD_READY ||
	    unwind_ip_in_shim(caller_ip) || preload_thread_nested() || own_call_active())
		return 0;
	return rlimit_retry_worth();
}

/* Whether a mapping that failed, called from caller_ip, is worth one more
 * try: it failed with ENOMEM and rlimit_call_retry_worth says so. */
static int rlimit_mmap_retry_worth(const void *caller_ip)
{
	return errno == ENOMEM && rlimit_call_retry_worth(caller_ip);
}

/* Go's runtime maps its heap through the C library's mmap in a program
 * linked with cgo (x_cgo_mmap), so a Go program that lowers its own limit
 * with a system call instruction gets its mappings too. */
PRELOAD_API void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	void *p = rlimit_mmap_next(NEXT_MMAP, addr, len, prot, flags, fd, off);

	if (__builtin_expect(p == MAP_FAILED, 0) && thread_pointer_is_libc() &&
	    rlimit_mmap_retry_worth(CALLER_IP))
		p = rlimit_mmap_next(NEXT_MMAP, addr, len, prot, flags, fd, off);
	if (drop_watch_mmap_flags(flags))
		stack_scrub_forget();
	return p;
}

PRELOAD_API void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	void *p = rlimit_mmap_next(NEXT_MMAP64, addr, len, prot, flags, fd, off);

	if (__builtin_expect(p == MAP_FAILED, 0) && thread_pointer_is_libc() &&
	    rlimit_mmap_retry_worth(CALLER_IP))
		p = rlimit_mmap_next(NEXT_MMAP64, addr, len, prot, flags, fd, off);
	if (drop_watch_mmap_flags(flags))
		stack_scrub_forget();
	return p;
}

PRELOAD_API int setrlimit(__rlimit_resource_t resource, const struct rlimit *rlim)
{
	int (*fn)(__rlimit_resource_t, const struct rlimit *) = next_fn(NEXT_SETRLIMIT);
	int rc;

	if (!fn) {
		errno = ENOSYS;
		return -1;
	}
	rc = fn(resource, rlim);
	rlimit_after(rc, 0, (int)resource);
	return rc;
}

PRELOAD_API int setrlimit64(__rlimit_resource_t resource, const struct rlimit64 *rlim)
{
	int (*fn)(__rlimit_resource_t, const struct rlimit64 *) = next_fn(NEXT_SETRLIMIT64);
	int rc;

	if (!fn) {
		errno = ENOSYS;
		return -1;
	}
	rc = fn(resource, rlim);
	rlimit_after(rc, 0, (int)resource);
	return rc;
}

PRELOAD_API int prlimit(pid_t pid, __rlimit_resource_t resource, const struct rlimit *new_limit,
			struct rlimit *old_limit)
{
	int (*fn)(pid_t, __rlimit_resource_t, const struct rlimit *, struct rlimit *) =
		next_fn(NEXT_PRLIMIT);
	int rc;

	if (!fn) {
		errno = ENOSYS;
		return -1;
	}
	rc = fn(pid, resource, new_limit, old_limit);
	if (new_limit)
		rlimit_after(rc, pid, (int)resource);
	return rc;
}

PRELOAD_API int prlimit64(pid_t pid, __rlimit_resource_t resource,
			  const struct rlimit64 *new_limit, struct rlimit64 *old_limit)
{
	int (*fn)(pid_t, __rlimit_resource_t, const struct rlimit64 *, struct rlimit64 *) =
		next_fn(NEXT_PRLIMIT64);
	int rc;

	if (!fn) {
		errno = ENOSYS;
		return -1;
	}
	rc = fn(pid, resource, new_limit, old_limit);
	if (new_limit)
		rlimit_after(rc, pid, (int)resource);
	return rc;
}

/* A new thread's stack is mapped by the C library's internal mmap, so a
 * limit lowered where no wrapper saw it shows first as EAGAIN here (Go's
 * runtime with cgo starts its threads so after syscall.Setrlimit).  The
 * call is made once more when the recorder gave address space back; it
 * has no effect when it fails.  errno is kept.  Before the first thread,
 * libunwind is loaded if it was not (preload/unwind.h). */
PRELOAD_API int pthread_create(pthread_t *thread, const pthread_attr_t *attr,
			       void *(*start)(void *), void *arg)
{
	int (*fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *) =
		next_fn(NEXT_PTHREAD_CREATE);
	int rc, saved_errno;

	if (!fn)
		return ENOSYS;
	unwind_threads_coming();
	rc = fn(thread, attr, start, arg);
	if (__builtin_expect(rc != EAGAIN, 1))
		return rc;
	saved_errno = errno;
	if (rlimit_call_retry_worth(CALLER_IP))
		rc = fn(thread, attr, start, arg);
	errno = saved_errno;
	return rc;
}
