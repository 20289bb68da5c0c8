/*
 * libc_entry_lib.c - a shared library that gets and gives back memory
 * through the C library's __libc_malloc and __libc_free
 * (tests/progs/libc_entry.c links it): the allocation site is lib_grab, at
 * the line marked LIB_LINE.
 */
#include "libc_entry.h"

void *lib_grab(size_t size);
void lib_drop(void *p);

__attribute__((noinline)) void *lib_grab(size_t size)
{
	return __libc_malloc(size); /* LIB_LINE */
}

__attribute__((noinline)) void lib_drop(void *p)
{
	__libc_free(p);
}
