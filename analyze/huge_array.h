/*
 * analyze/huge_array.h - large zeroed arrays in mappings of their own,
 * backed by transparent huge pages where the kernel offers them.
 *
 * The report's live-block table is tens of MiB on big traces and is read at
 * random: with 4 KiB pages nearly every lookup also missed the TLB, and
 * filling the table took one page fault per 4 KiB plus a memset of pages the
 * kernel had zeroed already.  A mapping aligned to 2 MiB and marked
 * MADV_HUGEPAGE takes one fault per 2 MiB; growing it with mremap keeps the
 * contents without a copy and the new part comes zeroed.  Without THP
 * (disabled, or another page size) the arrays work the same on small pages.
 *
 * Sizes are in bytes; the caller remembers the size of each array (needed
 * to grow and to free it).  Arrays are page-aligned.
 */
#ifndef MPROF_ANALYZE_HUGE_ARRAY_H
#define MPROF_ANALYZE_HUGE_ARRAY_H

#include <stddef.h>

/* Arrays at least this large (bytes) are worth a mapping of their own. */
#define HUGE_ARRAY_MIN ((size_t)2 << 20)

/* A zeroed array of bytes, or NULL when mapping fails. */
void *huge_array_alloc(size_t bytes);

/*
 * Grows array p of old_bytes to new_bytes (> old_bytes), keeping its
 * contents; bytes past old_bytes are zero.  Returns the array (possibly
 * moved), or NULL when it cannot grow, p then being unchanged and valid.
 */
void *huge_array_grow(void *p, size_t old_bytes, size_t new_bytes);

/* Unmaps array p of bytes (NULL: nothing). */
void huge_array_free(void *p, size_t bytes);

#endif
