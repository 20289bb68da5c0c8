/*
 * analyze/util/huge_array.h - large zeroed arrays in mappings of their own,
 * backed by transparent huge pages where the kernel offers them, with room
 * reserved to grow in place and a way to have the next part faulted in by
 * another thread.
 *
 * The report's live-block table is tens of MiB on big traces and is read at
 * random: with 4 KiB pages nearly every lookup also missed the TLB, and
 * filling the table took one page fault per 4 KiB plus a memset of pages the
 * kernel had zeroed already.  A mapping aligned to 2 MiB and marked
 * MADV_HUGEPAGE takes one fault per 2 MiB, and the part it grows into comes
 * zeroed.  The kernel still clears every page the first time it is touched:
 * on python3's trace (a 32 MiB table) that was a sixth of the aggregation
 * thread's time, so the owner can have the part it will grow into faulted
 * in beforehand, on a thread of its own (huge_prefault_start).  Without THP
 * (disabled, or another page size) the arrays work the same on small pages.
 *
 * Sizes are in bytes.  An array is page-aligned; the caller keeps its size
 * and its reservation (*reserved, bytes of address space behind it, which
 * cost no memory until touched).
 */
#ifndef MPROF_ANALYZE_HUGE_ARRAY_H
#define MPROF_ANALYZE_HUGE_ARRAY_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

/* One huge page (bytes): arrays smaller than this are not worth a mapping
 * of their own. */
#define HUGE_ARRAY_MIN ((size_t)2 << 20)

/* A zeroed array of bytes, with address space for 4 times as many reserved
 * when it can be had (for bytes only otherwise), or NULL when mapping
 * fails.  *reserved is set. */
void *huge_array_alloc(size_t bytes, size_t *reserved);

/* The same with address space for bytes only (rounded up to a page): for
 * an array that may never grow. */
void *huge_array_alloc_exact(size_t bytes, size_t *reserved);

/*
 * Grows array p of old_bytes (reservation *reserved) to new_bytes
 * (> old_bytes), keeping its contents; bytes past old_bytes are zero.
 * Within the reservation nothing moves; beyond it, the array moves (mremap:
 * page tables, not contents) into a new aligned reservation of 4 times
 * new_bytes (or new_bytes), or, when that cannot be mapped beside the old
 * one (ulimit -v), wherever the kernel extends or moves it, unaligned.
 * Returns the array, or NULL when it cannot grow, p then being unchanged
 * and valid.  *reserved is updated (on NULL too: the old reservation's
 * unused tail may have been given back).
 */
void *huge_array_grow(void *p, size_t old_bytes, size_t new_bytes, size_t *reserved);

/* Gives the memory of array p's first bytes (rounded down to a page) back
 * to the system, keeping the mapping: for an array read once from its
 * start, the part read already.  Those bytes read as zero afterwards. */
void huge_array_drop_head(void *p, size_t bytes);

/* Unmaps array p and its reservation (NULL: nothing). */
void huge_array_free(void *p, size_t reserved);

/* Unmaps the part of array p's reservation past its first keep bytes
 * (rounded up to a page), memory and address space; *reserved is updated.
 * The array must not be used past that point again. */
void huge_array_trim(void *p, size_t keep, size_t *reserved);

/*
 * Memory one phase used and a later phase may reuse: on these virtual
 * machines a page faulted in takes some 13 us, and reusing the pages a
 * table touched costs nothing.  An array of huge_array_alloc's; whoever
 * holds it frees it with huge_array_free(p, reserved).  Its contents are
 * whatever the last phase left.
 */
struct huge_spare {
	void *p;          /* NULL: none */
	size_t bytes;     /* the array's size, from p (faulted in where the
	                   * last phase wrote: all of it, on huge pages) */
	size_t reserved;  /* the reservation */
};

/* A thread faulting in part of a reservation (MADV_POPULATE_WRITE, Linux
 * 5.14; nothing on older kernels).  The bytes stay zero. */
struct huge_prefault {
	pthread_t thread;
	bool running;    /* started and not yet waited for */
	char *from;      /* the range */
	size_t bytes;
};

/* Starts faulting in [from, from + bytes) (page-aligned, inside a
 * reservation, and not in use by anyone until huge_prefault_wait).  Does
 * nothing when a thread cannot be had. */
void huge_prefault_start(struct huge_prefault *pf, void *from, size_t bytes);

/* Waits for the thread of pf, if one is running. */
void huge_prefault_wait(struct huge_prefault *pf);

#endif
