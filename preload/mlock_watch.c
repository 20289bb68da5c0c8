/*
 * preload/mlock_watch.c - makes a program's mlockall(MCL_CURRENT) lock the
 * program's memory, not the recorder's, and succeed or fail as it would
 * without the recorder.
 *
 * The kernel's mlockall(MCL_CURRENT) locks every mapping of the process
 * and, without CAP_IPC_LOCK, first compares all mapped address space with
 * RLIMIT_MEMLOCK: the recorder's 16 GiB reservation and 3 GiB process file
 * (4096 rings of 768 KiB, nearly all never written) made the call fail
 * with ENOMEM under `ulimit -l 8192` where a small program's succeeds, and
 * where it was allowed, it faulted in and locked the rings (20 s, 3 GiB of
 * shared memory) and counted 19 GiB in VmLck, against the limit every
 * later mlock and MCL_FUTURE mapping is checked with.  So the call is made
 * here in the kernel's order: flags the kernel refuses go to it as they
 * are; EPERM when the limit is 0 without the capability; ENOMEM when,
 * without it, the program's own mappings (those of /proc/self/maps that
 * are not the recorder's, mlock_watch_recorders) exceed the limit; else
 * MCL_FUTURE (and MCL_ONFAULT) is set with mlockall(flags without
 * MCL_CURRENT), or cleared with munlockall when not asked for, and each
 * of the program's mappings is locked with mlock2 (errors of its
 * faulting-in ignored, as mlockall ignores them).  The recorder's
 * mappings stay unlocked, also under MCL_FUTURE: their pieces are made
 * accessible with mprotect, which keeps a mapping's flags
 * (preload/mem.c, preload/nested_heap.c, a claimed ring).  Unlike the
 * kernel's call, the locking is not atomic with another thread's mapping.
 *
 * When /proc/self/maps cannot be read (no descriptor left), under a
 * seccomp filter, or inside the recorder, the kernel's call is made with
 * the program's flags, after the rings of free thread slots are made
 * inaccessible (the kernel skips them; thread_rings_seal_free) unless a
 * filter is installed: a filter may kill the mprotect of a later claim.
 * Before any MCL_FUTURE, the nested heap's region is reserved and libunwind
 * loaded (preload/unwind.h), so that neither is a new mapping, locked and
 * counted, when first used.
 *
 * Owns the exported mlockall.  Must not allocate (the next definition is
 * looked up at the recorder's start, as rlimit.c does).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <link.h>
#include <linux/capability.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload/bootstrap.h"

#include "preload/exported.h"
#include "preload/mem.h"
#include "preload/mlock_watch.h"
#include "preload/nested_heap.h"
#include "preload/next_sym.h"
#include "preload/own_call.h"
#include "preload/phdr.h"
#include "preload/process.h"
#include "preload/seccomp_watch.h"
#include "preload/sys.h"
#include "preload/thread.h"
#include "preload/thread_pointer.h"
#include "preload/unwind.h"

enum { NEXT_MLOCKALL, NEXT_COUNT };
static const char *const next_names[NEXT_COUNT] = { "mlockall" };
static void *volatile next_slots[NEXT_COUNT];

void mlock_watch_resolve(void)
{
	next_sym_resolve(next_slots, next_names, NEXT_COUNT);
}

/* Whether [start, end) lies in [base, base + bytes). */
static int mlock_range_in(uintptr_t start, uintptr_t end, uintptr_t base, uintptr_t bytes)
{
	return base && start >= base && end <= base + bytes;
}

/* The recorder's modules' address spans, each from its first segment's
 * page to the end of its last: this library, and what its load of
 * libunwind added. */
#define MLOCK_SPANS 6
struct mlock_spans {
	int count;
	uintptr_t span[MLOCK_SPANS][2];
};

/* dl_iterate_phdr callback: adds info's span to data (struct mlock_spans)
 * when the module is the recorder's. */
static int mlock_span_find(struct dl_phdr_info *info, size_t size, void *data)
{
	struct mlock_spans *spans = data;
	uintptr_t lo, hi;

	(void)size;
	if (spans->count == MLOCK_SPANS ||
	    (!phdr_load_holding(info, (uintptr_t)next_slots, sizeof(next_slots)) &&
	     !unwind_lib_added_module(info->dlpi_addr)))
		return 0;
	phdr_load_span(info, &lo, &hi);
	if (hi) { /* else the empty span UINTPTR_MAX..0 */
		lo += info->dlpi_addr;
		hi += info->dlpi_addr;
	}
	spans->span[spans->count][0] = lo & ~(uintptr_t)(PRELOAD_PAGE_BYTES - 1);
	spans->span[spans->count][1] =
		(hi + PRELOAD_PAGE_BYTES - 1) & ~(uintptr_t)(PRELOAD_PAGE_BYTES - 1);
	spans->count++;
	return 0;
}

/* Whether the mapping [start, end) is the recorder's: its reservation,
 * process file, nested heap, bootstrap arena, or one of its modules. */
static int mlock_watch_recorders(uintptr_t start, uintptr_t end, const struct mlock_spans *mods)
{
	for (int i = 0; i < mods->count; i++)
		if (start >= mods->span[i][0] && end <= mods->span[i][1])
			return 1;
	return preload_mem_reservation_holds(start, end) ||
	       mlock_range_in(start, end, (uintptr_t)preload_proc.hdr, preload_proc.file_bytes) ||
	       mlock_range_in(start, end,
			      atomic_load_explicit(&nested_heap_range.base, memory_order_relaxed),
			      atomic_load_explicit(&nested_heap_range.bytes, memory_order_acquire)) ||
	       mlock_range_in(start, end,
			      atomic_load_explicit(&bootstrap_arena_base, memory_order_relaxed),
			      BOOTSTRAP_ARENA_BYTES);
}

/*
 * Walks /proc/self/maps over the program's own mappings (not the
 * recorder's, not the kernel's gate page above the user half): with
 * lock_flags -1 sums their bytes into *bytes; otherwise locks each with
 * mlock2(lock_flags) (mlock when 0), ignoring its errors.  0, or -1 when
 * the file cannot be read.
 */
static int mlock_walk(int lock_flags, uint64_t *bytes)
{
	struct mlock_spans mods = { 0 };
	uintptr_t start = 0, end = 0;
	char buf[4096];
	int fd, field = 0;
	ssize_t n;

	dl_iterate_phdr(mlock_span_find, &mods);
	fd = sys_open("/proc/self/maps", O_RDONLY | O_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	while ((n = sys_read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			sys_close(fd);
			return -1;
		}
		for (ssize_t i = 0; i < n; i++) {
			char c = buf[i];
			int digit = c >= '0' && c <= '9' ? c - '0'
				    : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;

			if (field == 0 && digit >= 0) {
				start = start << 4 | (uintptr_t)digit;
			} else if (field == 0) {
				field = 1; /* the '-' */
			} else if (field == 1 && digit >= 0) {
				end = end << 4 | (uintptr_t)digit;
			} else if (field == 1) {
				field = 2; /* the rest of the line */
			} else if (c == '\n') {
				if (end > start && start < (uintptr_t)1 << (sizeof(uintptr_t) * 8 - 1) &&
				    !mlock_watch_recorders(start, end, &mods)) {
					if (lock_flags < 0)
						*bytes += end - start;
					else if (lock_flags)
						syscall(SYS_mlock2, start, end - start, lock_flags);
					else
						syscall(SYS_mlock, start, end - start);
				}
				field = 0;
				start = end = 0;
			}
		}
	}
	sys_close(fd);
	return 0;
}

/* Whether this thread has CAP_IPC_LOCK in its effective set. */
static int mlock_capable(void)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];

	if (syscall(SYS_capget, &hdr, data) != 0)
		return 0;
	return (data[CAP_TO_INDEX(CAP_IPC_LOCK)].effective & CAP_TO_MASK(CAP_IPC_LOCK)) != 0;
}

/*
 * mlockall(flags) with MCL_CURRENT in valid flags, made for the program's
 * own mappings (see the file's head): 1 with the result in *rc and its
 * errno in *err; 0 when /proc/self/maps could not be read before anything
 * changed (the caller makes the kernel's call).  When it cannot be read
 * for the locking, the kernel's call is made here, free rings sealed.
 */
static int mlock_current(int flags, int *rc, int *err)
{
	int capable = mlock_capable();
	uint64_t bytes = 0;
	struct rlimit lim;

	*rc = -1;
	if (getrlimit(RLIMIT_MEMLOCK, &lim) != 0)
		return 0;
	if (lim.rlim_cur == 0 && !capable) {
		*err = EPERM;
		return 1;
	}
	if (!capable && lim.rlim_cur != RLIM_INFINITY) {
		if (mlock_walk(-1, &bytes) != 0)
			return 0;
		if (bytes / PRELOAD_PAGE_BYTES > lim.rlim_cur / PRELOAD_PAGE_BYTES) {
			*err = ENOMEM;
			return 1;
		}
	}
	/* MCL_FUTURE set or cleared as the kernel's call does (syscall()
	 * comes back to mlock_watch_call, which in an own call declines) */
	if ((flags & MCL_FUTURE ? syscall(SYS_mlockall, flags & ~MCL_CURRENT)
				: syscall(SYS_munlockall)) != 0) {
		*err = errno;
		return 1;
	}
	*rc = 0;
	if (mlock_walk(flags & MCL_ONFAULT ? MLOCK_ONFAULT : 0, &bytes) == 0)
		return 1;
	thread_rings_seal_free();
	if (syscall(SYS_mlockall, flags) != 0) {
		*rc = -1;
		*err = errno;
	}
	return 1;
}

int mlock_watch_call(int flags, int *rc)
{
	int saved = errno, made = 0, err = 0;
	struct own_call own;

	/* flags the kernel refuses (EINVAL) go to it */
	if (!(flags & (MCL_CURRENT | MCL_FUTURE)) ||
	    (flags & ~(MCL_CURRENT | MCL_FUTURE | MCL_ONFAULT)) || !thread_pointer_is_libc() ||
	    atomic_load_explicit(&preload_phase, memory_order_acquire) != PRELOAD_READY ||
	    preload_thread_nested() || own_call_active())
		return 0;
	/* libunwind, loaded at the first thread otherwise, is loaded now:
	 * under MCL_FUTURE its mappings would be locked and counted */
	if (flags & MCL_FUTURE)
		unwind_threads_coming();
	/* signals blocked: the sealing takes the pool lock, which a handler's
	 * first allocation on this thread could wait for */
	own_call_enter(&own);
	/* the recorder's later mappings come from regions made now, unlocked */
	if (flags & MCL_FUTURE)
		nested_heap_reserve();
	/* under a seccomp filter, reading the maps and a claim's mprotect
	 * could be killed */
	if ((flags & MCL_CURRENT) && !seccomp_watch_filtered()) {
		made = mlock_current(flags, rc, &err);
		if (!made)
			thread_rings_seal_free();
	}
	own_call_leave(&own);
	errno = made && *rc ? err : saved;
	return made;
}

PRELOAD_API int mlockall(int flags)
{
	int (*fn)(int) = next_sym(next_slots, next_names, NEXT_MLOCKALL);
	int rc;

	if (mlock_watch_call(flags, &rc))
		return rc;
	if (!fn)
		return (int)syscall(SYS_mlockall, flags);
	return fn(flags);
}
