/*
 * preload/mem.c - anonymous mappings for the shim's own data.
 *
 * Owns nothing itself; callers own what they map.  Must never call malloc
 * (the shim interposes it) and never touches a file descriptor.
 */
#include <sys/mman.h>

#include "preload/mem.h"

void *preload_mem_map(size_t size_bytes)
{
	void *p = mmap(NULL, preload_mem_round(size_bytes), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

void preload_mem_unmap(void *p, size_t size_bytes)
{
	if (p)
		munmap(p, preload_mem_round(size_bytes));
}
