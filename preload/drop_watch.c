/*
 * preload/drop_watch.c - the exported madvise and munmap: each calls the
 * next definition with the same arguments, returns its result with its
 * errno, and then says that stack pages may have gone
 * (stack_scrub_forget): after any munmap, and after a madvise but for the
 * advice known to keep pages (the recorder's own MADV_POPULATE_WRITE, 44
 * calls in `python3 -c 'import asyncio'`, among them).  syscall() (syscall_wrap.c)
 * and mmap (rlimit.c) ask drop_watch_syscall and drop_watch_mmap_flags.
 * Not seen: the C library's internal calls (its thread stacks' madvise at a
 * thread's exit, after the thread's last allocation; a recycled thread
 * state starts with nothing known), mremap's function, io_uring, a system
 * call instruction of the program's own.
 *
 * Owns the exported madvise and munmap.  Must not allocate (the next
 * definitions are looked up at the recorder's start, as rlimit.c does).
 */
#define _GNU_SOURCE
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload/drop_watch.h"
#include "preload/exported.h"
#include "preload/next_sym.h"
#include "preload/stack_scrub.h"

enum { NEXT_MADVISE, NEXT_MUNMAP, NEXT_COUNT };
static const char *const next_names[NEXT_COUNT] = { "madvise", "munmap" };
static void *volatile next_slots[NEXT_COUNT];

void drop_watch_resolve(void)
{
	next_sym_resolve(next_slots, next_names, NEXT_COUNT);
}

int drop_watch_mmap_flags(int flags)
{
	return (flags & MAP_FIXED) != 0;
}

int drop_watch_advice(int advice)
{
	switch (advice) {
	case MADV_NORMAL:
	case MADV_RANDOM:
	case MADV_SEQUENTIAL:
	case MADV_WILLNEED:
	case MADV_DOFORK:
	case MADV_HUGEPAGE:
	case MADV_NOHUGEPAGE:
	case MADV_DONTDUMP:
	case MADV_DODUMP:
#ifdef MADV_POPULATE_WRITE
	case MADV_POPULATE_READ:
	case MADV_POPULATE_WRITE:
#endif
		return 0;
	default:
		return 1;
	}
}

int drop_watch_syscall(long nr, const long a[6])
{
	return (nr == SYS_madvise && drop_watch_advice((int)a[2])) || nr == SYS_munmap ||
	       nr == SYS_mremap || nr == SYS_process_madvise ||
	       (nr == SYS_mmap && drop_watch_mmap_flags((int)a[3]));
}

PRELOAD_API int madvise(void *addr, size_t len, int advice)
{
	int (*fn)(void *, size_t, int) = __atomic_load_n(&next_slots[NEXT_MADVISE], __ATOMIC_ACQUIRE);
	int rc = fn ? fn(addr, len, advice) : (int)syscall(SYS_madvise, addr, len, advice);

	if (drop_watch_advice(advice))
		stack_scrub_forget();
	return rc;
}

PRELOAD_API int munmap(void *addr, size_t len)
{
	int (*fn)(void *, size_t) = __atomic_load_n(&next_slots[NEXT_MUNMAP], __ATOMIC_ACQUIRE);
	int rc = fn ? fn(addr, len) : (int)syscall(SYS_munmap, addr, len);

	stack_scrub_forget();
	return rc;
}
