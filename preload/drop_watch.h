/*
 * preload/drop_watch.h - sees the calls by which a program drops or unmaps
 * memory, which may be pages of a thread's stack: the deep scrub's known
 * resident pages are then forgotten (preload/stack_scrub.h).
 */
#ifndef MPROF_PRELOAD_DROP_WATCH_H
#define MPROF_PRELOAD_DROP_WATCH_H

/* Looks up the next definitions of madvise and munmap (at the recorder's
 * start: dlsym may allocate). */
void drop_watch_resolve(void);

/* Whether madvise with this advice may drop pages or leave a fork child
 * without them: all but those known to keep them (MADV_WILLNEED,
 * MADV_POPULATE_WRITE, ...). */
int drop_watch_advice(int advice);

/* Whether system call nr with arguments a may drop or unmap pages:
 * madvise (drop_watch_advice), process_madvise, munmap, mremap, and an
 * mmap with MAP_FIXED. */
int drop_watch_syscall(long nr, const long a[6]);

/* Whether an mmap with these flags may replace mapped pages (MAP_FIXED). */
int drop_watch_mmap_flags(int flags);

#endif
