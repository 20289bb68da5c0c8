/*
 * libc_entry.h - the C library's internal allocator entry points, which
 * glibc exports (GLIBC_2.2.5; __libc_reallocarray GLIBC_PRIVATE) but no
 * header declares.  Used by tests/progs/libc_entry*.c and libc_wrap.c.
 */
#ifndef LIBC_ENTRY_H
#define LIBC_ENTRY_H

#include <stddef.h>

void *__libc_malloc(size_t size);
void __libc_free(void *p);
void *__libc_calloc(size_t n, size_t size);
void *__libc_realloc(void *p, size_t size);
void *__libc_reallocarray(void *p, size_t n, size_t size);
void *__libc_memalign(size_t align, size_t size);
void *__libc_valloc(size_t size);
void *__libc_pvalloc(size_t size);

#endif
