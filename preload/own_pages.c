/*
 * preload/own_pages.c - asks the kernel which pages of the program's memory
 * can be read, for wrappers that read what the program handed a C library
 * call before the kernel checks it (the exec family's path and
 * environment): a bad address must give the program EFAULT, as without
 * mprof, not a fault in the shim.
 *
 * A page's protection covers all its bytes, so a page whose first bytes the
 * kernel could copy can then be read directly.  A page unmapped between the
 * question and the read (by another thread) still faults, as it would in
 * the C library's own code.  Where the kernel refuses the question itself
 * (ENOSYS from a sandbox) every page is taken as readable, as before this
 * check.  Never allocates; keeps errno; the set lives on the caller's stack.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload/own_pages.h"

#define OWN_PAGE_SIZE 4096u

static uintptr_t page_of(uintptr_t at)
{
	return at & ~(uintptr_t)(OWN_PAGE_SIZE - 1);
}

void own_pages_init(struct own_pages *set)
{
	set->known_count = 0;
	set->direct = 0;
}

/*
 * Whether the kernel can copy 8 bytes of the page at page: 1 yes, 0 no
 * (EFAULT), -1 it refused the question.  rt_sigprocmask with an invalid
 * `how` copies the new mask from the address first (EFAULT) and then fails
 * with EINVAL, changing nothing: the kernel's own copy_from_user, the check
 * execve makes of its arguments, in one system call of about 0.2 us.
 * process_vm_readv, the other way, took 1.5 us a call and 0.4 us more a
 * page here (and refuses VM_IO mappings the kernel's own copies read).  The
 * bytes asked for are the page's second 8, so that page 0 is no null
 * pointer (which the call takes for "no new mask").
 */
static int own_page_readable(uintptr_t page)
{
	long rc = syscall(SYS_rt_sigprocmask, -1, (void *)(page + 8), NULL, (size_t)8);

	if (rc < 0 && errno == EFAULT)
		return 0;
	return rc < 0 && errno == EINVAL ? 1 : -1;
}

/* Whether the page at page can be read, asking the kernel only for a page
 * not known yet (remembered, past OWN_PAGES_KNOWN over the oldest). */
static int own_pages_page(struct own_pages *set, uintptr_t page)
{
	unsigned n = set->known_count < OWN_PAGES_KNOWN ? set->known_count : OWN_PAGES_KNOWN;
	int readable;

	if (set->direct)
		return 1;
	for (unsigned i = 0; i < n; i++)
		if (set->known[i] == page)
			return 1;
	readable = own_page_readable(page);
	if (readable < 0) {
		set->direct = 1;
		return 1;
	}
	if (readable) {
		set->known[set->known_count++ % OWN_PAGES_KNOWN] = page;
		if (set->known_count == 2 * OWN_PAGES_KNOWN)
			set->known_count = OWN_PAGES_KNOWN;
	}
	return readable;
}

int own_pages_range(struct own_pages *set, const void *p, size_t size)
{
	uintptr_t at = (uintptr_t)p, last;
	int saved = errno, rc = 0;

	if (!size)
		return 0;
	if (at + size - 1 < at)
		return -1;
	last = page_of(at + size - 1);
	for (uintptr_t page = page_of(at);; page += OWN_PAGE_SIZE) {
		if (!own_pages_page(set, page)) {
			rc = -1;
			break;
		}
		if (page == last)
			break;
	}
	errno = saved;
	return rc;
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
