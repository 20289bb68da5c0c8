/*
 * noaccess_lib.c - a library linked with tests/progs/noaccess_first.lds:
 * its first loaded segment has no access (PROT_NONE) and holds no ELF
 * header, its code is in the second.  noaccess_alloc(n) allocates n bytes
 * in noaccess_inner.
 */
#include <stdlib.h>

__attribute__((noinline)) void *noaccess_inner(size_t n)
{
	return malloc(n);
}

__attribute__((noinline)) void *noaccess_alloc(size_t n)
{
	void *p = noaccess_inner(n);

	__asm__ volatile("" ::: "memory");
	return p;
}
