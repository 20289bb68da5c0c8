/*
 * analyze/huge_array.c - large zeroed arrays in 2 MiB-aligned anonymous
 * mappings marked for transparent huge pages (see huge_array.h).
 *
 * Alignment is had by mapping 2 MiB more than asked, without access, and
 * unmapping what lies outside the aligned range; a huge page can only back
 * an aligned 2 MiB of a mapping.  Growing first tries to extend the mapping
 * where it lies, then moves it (mremap, MREMAP_FIXED) into an aligned range
 * reserved the same way: the kernel moves page tables, huge pages included,
 * so nothing is copied.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "analyze/huge_array.h"

#define HUGE_ALIGN ((size_t)2 << 20)

static size_t page_round(size_t bytes)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	return (bytes + page - 1) & ~(page - 1);
}

/* An inaccessible range of bytes (a page multiple) at a HUGE_ALIGN-aligned
 * address, or NULL. */
static char *reserve_aligned(size_t bytes)
{
	char *r, *a;
	size_t span;

	if (bytes > SIZE_MAX - HUGE_ALIGN)
		return NULL;
	span = bytes + HUGE_ALIGN;
	r = mmap(NULL, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (r == MAP_FAILED)
		return NULL;
	a = (char *)(((uintptr_t)r + HUGE_ALIGN - 1) & ~(uintptr_t)(HUGE_ALIGN - 1));
	if (a > r)
		munmap(r, (size_t)(a - r));
	if (r + span > a + bytes)
		munmap(a + bytes, (size_t)(r + span - (a + bytes)));
	return a;
}

static void advise_huge(void *p, size_t bytes)
{
#ifdef MADV_HUGEPAGE
	(void)madvise(p, bytes, MADV_HUGEPAGE); /* advice only: fine without THP */
#else
	(void)p;
	(void)bytes;
#endif
}

void *huge_array_alloc(size_t bytes)
{
	char *a;

	bytes = page_round(bytes);
	a = reserve_aligned(bytes);
	if (!a)
		return NULL;
	if (mprotect(a, bytes, PROT_READ | PROT_WRITE) < 0) {
		munmap(a, bytes);
		return NULL;
	}
	advise_huge(a, bytes);
	return a;
}

void *huge_array_grow(void *p, size_t old_bytes, size_t new_bytes)
{
	char *a;
	void *q;

	old_bytes = page_round(old_bytes);
	new_bytes = page_round(new_bytes);
	q = mremap(p, old_bytes, new_bytes, 0);
	if (q != MAP_FAILED) {
		advise_huge(q, new_bytes);
		return q;
	}
	a = reserve_aligned(new_bytes);
	if (!a)
		return NULL;
	q = mremap(p, old_bytes, new_bytes, MREMAP_MAYMOVE | MREMAP_FIXED, a);
	if (q == MAP_FAILED) {
		munmap(a, new_bytes);
		return NULL;
	}
	advise_huge(q, new_bytes);
	return q;
}

void huge_array_free(void *p, size_t bytes)
{
	if (p)
		munmap(p, page_round(bytes));
}
