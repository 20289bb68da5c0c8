/*
 * preload/own_pages.h - whether memory the program handed a C library call
 * can be read, asked of the kernel a batch of pages at a time, so that a
 * wrapper may then read it directly where the kernel would have refused the
 * address with EFAULT (see own_pages.c).
 */
#ifndef MPROF_PRELOAD_OWN_PAGES_H
#define MPROF_PRELOAD_OWN_PAGES_H

#include <stddef.h>
#include <stdint.h>

/* Pages one own_pages_ask call asks for, and pages a set remembers. */
#define OWN_PAGES_BATCH 32
#define OWN_PAGES_KNOWN 32

/* The pages found readable during one wrapper call (on its stack), and
 * those waiting to be asked for. */
struct own_pages {
	uintptr_t known[OWN_PAGES_KNOWN];
	uintptr_t wanted[OWN_PAGES_BATCH];
	unsigned known_count, wanted_count;
	int direct; /* the kernel refused the question itself: all taken as readable */
};

void own_pages_init(struct own_pages *set);

/* Queues the page of address p to be asked for (nothing when known). */
void own_pages_want(struct own_pages *set, const void *p);

/* Asks for the queued pages in one process_vm_readv call (more when more
 * than OWN_PAGES_BATCH are queued).  Returns 0 when all can be read, -1
 * when one cannot.  Keeps errno. */
int own_pages_ask(struct own_pages *set);

/* 0 when the size bytes at p can be read, else -1. */
int own_pages_range(struct own_pages *set, const void *p, size_t size);

/* 0 when the string at s can be read up to its NUL, found within max
 * bytes, else -1. */
int own_pages_str(struct own_pages *set, const char *s, size_t max);

#endif
