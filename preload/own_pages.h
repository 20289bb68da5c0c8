/*
 * preload/own_pages.h - whether memory the program handed a C library call
 * can be read, asked of the kernel a page at a time, so that a wrapper may
 * then read it directly where the kernel would have refused the address
 * with EFAULT (see own_pages.c).
 */
#ifndef MPROF_PRELOAD_OWN_PAGES_H
#define MPROF_PRELOAD_OWN_PAGES_H

#include <stddef.h>
#include <stdint.h>

/* Pages a set remembers. */
#define OWN_PAGES_KNOWN 16

/* The pages found readable during one wrapper call (on its stack). */
struct own_pages {
	uintptr_t known[OWN_PAGES_KNOWN];
	unsigned known_count;
	int direct; /* the kernel refused the question itself: all taken as readable */
};

void own_pages_init(struct own_pages *set);

/* 0 when the size bytes at p can be read, else -1.  Keeps errno. */
int own_pages_range(struct own_pages *set, const void *p, size_t size);

/* 0 when the string at s can be read up to its NUL, found within max
 * bytes, else -1.  Keeps errno. */
int own_pages_str(struct own_pages *set, const char *s, size_t max);

#endif
