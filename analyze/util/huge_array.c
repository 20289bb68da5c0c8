/*
 * analyze/util/huge_array.c - large zeroed arrays in 2 MiB-aligned anonymous
 * mappings marked for transparent huge pages (see huge_array.h).
 *
 * Alignment is had by mapping 2 MiB more than asked and unmapping what lies
 * outside the aligned range: a huge page can only back an aligned 2 MiB of a
 * mapping.  The reservation is mapped readable and writable but
 * MAP_NORESERVE: untouched pages cost neither memory nor commit charge
 * (except under strict overcommit, where a 4-times reservation may fail and
 * the exact size is tried).  Moving into a new reservation uses mremap with
 * MREMAP_FIXED: the kernel moves page tables, huge pages included, so
 * nothing is copied.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "analyze/util/huge_array.h"

#define HUGE_ALIGN ((size_t)2 << 20)
#define HUGE_RESERVE_FACTOR 4
#define PREFAULT_STACK_BYTES ((size_t)64 << 10)

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14 (uapi asm-generic/mman-common.h) */
#endif

static size_t page_round(size_t bytes)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	return (bytes + page - 1) & ~(page - 1);
}

/* Marks [p, p + bytes) for transparent huge pages: advice only, fine
 * without THP. */
static void mark_huge(void *p, size_t bytes)
{
#ifdef MADV_HUGEPAGE
	(void)madvise(p, bytes, MADV_HUGEPAGE);
#else
	(void)p;
	(void)bytes;
#endif
}

/* A zeroed, writable range of bytes (a page multiple) at a HUGE_ALIGN-
 * aligned address when there is address space for that, marked for huge
 * pages, or NULL. */
static char *map_aligned(size_t bytes)
{
	char *r, *a;
	size_t span;

	if (bytes > SIZE_MAX - HUGE_ALIGN)
		return NULL;
	span = bytes + HUGE_ALIGN;
	r = mmap(NULL, span, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (r == MAP_FAILED) {
		/* no room for the alignment's slack (ulimit -v): unaligned, so
		 * fewer huge pages, but no more address space than asked */
		r = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (r == MAP_FAILED)
			return NULL;
		mark_huge(r, bytes);
		return r;
	}
	a = (char *)(((uintptr_t)r + HUGE_ALIGN - 1) & ~(uintptr_t)(HUGE_ALIGN - 1));
	if (a > r)
		munmap(r, (size_t)(a - r));
	if (r + span > a + bytes)
		munmap(a + bytes, (size_t)(r + span - (a + bytes)));
	mark_huge(a, bytes);
	return a;
}

void *huge_array_alloc_exact(size_t bytes, size_t *reserved)
{
	*reserved = page_round(bytes);
	return map_aligned(*reserved);
}

/* A reservation for at least bytes: HUGE_RESERVE_FACTOR times as many when
 * that can be mapped.  Sets *reserved. */
static char *map_reservation(size_t bytes, size_t *reserved)
{
	char *a = NULL;

	if (bytes <= SIZE_MAX / HUGE_RESERVE_FACTOR) {
		*reserved = page_round(bytes * HUGE_RESERVE_FACTOR);
		a = map_aligned(*reserved);
	}
	return a ? a : huge_array_alloc_exact(bytes, reserved);
}

void *huge_array_alloc(size_t bytes, size_t *reserved)
{
	return map_reservation(bytes, reserved);
}

void *huge_array_grow(void *p, size_t old_bytes, size_t new_bytes, size_t *reserved)
{
	size_t old_reserved = *reserved, now;
	char *a;
	void *q;

	if (new_bytes <= old_reserved)
		return p;
	old_bytes = page_round(old_bytes);
	new_bytes = page_round(new_bytes);
	a = map_reservation(new_bytes, &now);
	if (a) {
		q = mremap(p, old_bytes, now, MREMAP_MAYMOVE | MREMAP_FIXED, a);
		if (q != MAP_FAILED) {
			if (old_reserved > old_bytes)
				munmap((char *)p + old_bytes, old_reserved - old_bytes);
			mark_huge(q, now);
			*reserved = now;
			return q;
		}
		/* (A failure the kernel reports after unmapping the target,
		 * such as the map count limit, leaves a hole that another
		 * thread could map into before this munmap: not seen, and
		 * failing with RLIMIT_AS leaves the reservation in place.) */
		munmap(a, now);
	}
	/*
	 * No aligned room: under a limit on address space (ulimit -v) the
	 * new reservation and the old array cannot both be mapped.  Give
	 * back the old reservation's tail and let the kernel extend or move
	 * the array where it can, as realloc would: unaligned, so fewer
	 * huge pages, but old + new bytes at most.
	 */
	if (old_reserved > old_bytes) {
		munmap((char *)p + old_bytes, old_reserved - old_bytes);
		*reserved = old_bytes;
	}
	q = mremap(p, old_bytes, new_bytes, MREMAP_MAYMOVE);
	if (q == MAP_FAILED)
		return NULL;
	mark_huge(q, new_bytes);
	*reserved = new_bytes;
	return q;
}

void huge_array_drop_head(void *p, size_t bytes)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	bytes &= ~(page - 1);
	if (bytes)
		(void)madvise(p, bytes, MADV_DONTNEED); /* (advice: kept on failure) */
}

void huge_array_free(void *p, size_t reserved)
{
	if (p)
		munmap(p, reserved);
}

void huge_array_trim(void *p, size_t keep, size_t *reserved)
{
	keep = page_round(keep);
	if (p && keep < *reserved) {
		munmap((char *)p + keep, *reserved - keep);
		*reserved = keep;
	}
}

static void *prefault_run(void *arg)
{
	struct huge_prefault *pf = arg;

	(void)madvise(pf->from, pf->bytes, MADV_POPULATE_WRITE); /* EINVAL before 5.14 */
	return NULL;
}

void huge_prefault_start(struct huge_prefault *pf, void *from, size_t bytes)
{
	pthread_attr_t attr;

	huge_prefault_wait(pf);
	pf->from = from;
	pf->bytes = bytes;
	pf->running = false;
	if (pthread_attr_init(&attr) != 0)
		return;
	/* one system call deep: a small stack, not 8 MiB of address space */
	(void)pthread_attr_setstacksize(&attr, PREFAULT_STACK_BYTES);
	pf->running = pthread_create(&pf->thread, &attr, prefault_run, pf) == 0;
	pthread_attr_destroy(&attr);
}

void huge_prefault_wait(struct huge_prefault *pf)
{
	if (pf->running) {
		pthread_join(pf->thread, NULL);
		pf->running = false;
	}
}
