/*
 * preload/own_pages.c - asks the kernel which pages of the program's memory
 * can be read, for wrappers that read what the program handed a C library
 * call before the kernel checks it (the exec family's path and
 * environment): a bad address must give the program EFAULT, as without
 * mprof, not a fault in the shim.
 *
 * One process_vm_readv call reads one byte of each page asked for (so a
 * batch of pages costs one system call, about 1.5 us, and some 0.4 us more
 * a page); a page's protection covers all its bytes, so a page that gave
 * its byte can then be read directly.  A page unmapped between the question
 * and the read (by another thread) still faults, as it would in the C
 * library's own code.  Where process_vm_readv itself is refused (ENOSYS,
 * EPERM; not EFAULT) every page is taken as readable, as before this check.
 * Never allocates; keeps errno; the set lives on the caller's stack.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "preload/own_pages.h"

#define OWN_PAGE_SIZE 4096u

static uintptr_t page_of(const void *p)
{
	return (uintptr_t)p & ~(uintptr_t)(OWN_PAGE_SIZE - 1);
}

void own_pages_init(struct own_pages *set)
{
	set->known_count = 0;
	set->wanted_count = 0;
	set->direct = 0;
}

static int own_pages_known(const struct own_pages *set, uintptr_t page)
{
	unsigned n = set->known_count < OWN_PAGES_KNOWN ? set->known_count : OWN_PAGES_KNOWN;

	for (unsigned i = 0; i < n; i++)
		if (set->known[i] == page)
			return 1;
	return 0;
}

/* Remembers a readable page; past OWN_PAGES_KNOWN, over the oldest. */
static void own_pages_remember(struct own_pages *set, uintptr_t page)
{
	set->known[set->known_count++ % OWN_PAGES_KNOWN] = page;
	if (set->known_count == 2 * OWN_PAGES_KNOWN)
		set->known_count = OWN_PAGES_KNOWN;
}

/* One process_vm_readv call for the n pages of wanted: how many of them,
 * from the first, were read (n when all were; -1 when the call itself was
 * refused). */
static long own_pages_read(const uintptr_t *wanted, unsigned n)
{
	struct iovec local[OWN_PAGES_BATCH], remote[OWN_PAGES_BATCH];
	char scratch[OWN_PAGES_BATCH];
	ssize_t got;

	for (unsigned i = 0; i < n; i++) {
		local[i] = (struct iovec){ &scratch[i], 1 };
		remote[i] = (struct iovec){ (void *)wanted[i], 1 };
	}
	got = process_vm_readv(getpid(), local, n, remote, n, 0);
	if (got < 0)
		return errno == EFAULT ? 0 : -1;
	return got;
}

int own_pages_ask(struct own_pages *set)
{
	unsigned n = set->wanted_count;
	int saved = errno, rc = 0;
	long got;

	set->wanted_count = 0;
	if (!n || set->direct)
		return 0;
	got = own_pages_read(set->wanted, n);
	if (got < 0)
		set->direct = 1;
	else if ((unsigned long)got < n)
		rc = -1;
	for (unsigned i = 0; i < n && (got < 0 || i < (unsigned long)got); i++)
		own_pages_remember(set, set->wanted[i]);
	errno = saved;
	return rc;
}

void own_pages_want(struct own_pages *set, const void *p)
{
	uintptr_t page = page_of(p);

	if (set->direct || own_pages_known(set, page))
		return;
	for (unsigned i = 0; i < set->wanted_count; i++)
		if (set->wanted[i] == page)
			return;
	if (set->wanted_count == OWN_PAGES_BATCH)
		own_pages_ask(set); /* a page it could not read is asked again */
	set->wanted[set->wanted_count++] = page;
}

int own_pages_range(struct own_pages *set, const void *p, size_t size)
{
	uintptr_t at = (uintptr_t)p;

	if (!size)
		return 0;
	if (at + size < at)
		return -1;
	for (uintptr_t page = page_of(p); page <= at + size - 1; page += OWN_PAGE_SIZE) {
		own_pages_want(set, (const void *)page);
		if (page + OWN_PAGE_SIZE < page)
			break;
	}
	return own_pages_ask(set);
}

int own_pages_str(struct own_pages *set, const char *s, size_t max)
{
	size_t n = 0;

	while (n < max) {
		const char *at = s + n;
		size_t span = OWN_PAGE_SIZE - ((uintptr_t)at & (OWN_PAGE_SIZE - 1));

		if (span > max - n)
			span = max - n;
		if (own_pages_range(set, at, 1) != 0)
			return -1;
		if (memchr(at, '\0', span))
			return 0;
		n += span;
	}
	return -1;
}
