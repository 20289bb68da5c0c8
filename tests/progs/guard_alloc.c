/*
 * guard_alloc.c - a tiny allocator for tests, loaded with LD_PRELOAD after
 * mprof's recorder (so the recorder's "real" malloc is this one, as with
 * tcmalloc or mimalloc preloaded).  Every block starts a page of its own
 * right after an inaccessible page, so reading even one byte before a block
 * (as one could to peek at a glibc chunk header) crashes the program.  Like
 * tcmalloc, it also exports __libc_free as an alias of its free.
 *
 * Not thread-safe; blocks are listed in a fixed table (GUARD_BLOCKS).
 * calloc and realloc are built on malloc; other entry points are left to
 * the C library, so the program must use only these four.
 */
#define _GNU_SOURCE
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define GUARD_BLOCKS 65536

static struct {
	char *user;
	size_t map_bytes;
	size_t size_bytes;
} blocks[GUARD_BLOCKS];

static long page_bytes(void)
{
	static long page;

	if (!page)
		page = sysconf(_SC_PAGESIZE);
	return page;
}

void *malloc(size_t size_bytes)
{
	size_t page = (size_t)page_bytes();
	size_t map_bytes = page + ((size_bytes + page - 1) / page) * page + (size_bytes ? 0 : page);
	char *base;

	for (int i = 0; i < GUARD_BLOCKS; i++) {
		if (blocks[i].user)
			continue;
		base = mmap(NULL, map_bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (base == MAP_FAILED)
			return NULL;
		if (mprotect(base + page, map_bytes - page, PROT_READ | PROT_WRITE) != 0) {
			munmap(base, map_bytes);
			return NULL;
		}
		blocks[i].user = base + page;
		blocks[i].map_bytes = map_bytes;
		blocks[i].size_bytes = size_bytes;
		return blocks[i].user;
	}
	return NULL;
}

static int guard_find(const void *p)
{
	for (int i = 0; i < GUARD_BLOCKS; i++)
		if (blocks[i].user == p)
			return i;
	return -1;
}

void free(void *p)
{
	int i = p ? guard_find(p) : -1;

	if (i < 0)
		return;
	munmap(blocks[i].user - page_bytes(), blocks[i].map_bytes);
	blocks[i].user = NULL;
}

void __libc_free(void *p) __attribute__((alias("free")));

/* 1 when p is a live block of this allocator (for tests that check where a
 * block came from, looked up with dlsym). */
int guard_alloc_owns(const void *p)
{
	return p && guard_find(p) >= 0;
}

void *calloc(size_t n, size_t size_bytes)
{
	void *p;

	if (size_bytes && n > (size_t)-1 / size_bytes)
		return NULL;
	p = malloc(n * size_bytes);
	if (p)
		memset(p, 0, n * size_bytes);
	return p;
}

void *realloc(void *old, size_t size_bytes)
{
	int i;
	void *p;

	i = old ? guard_find(old) : -1;
	if (old && i < 0)
		return NULL;
	p = malloc(size_bytes);
	if (p && old) {
		memcpy(p, old, blocks[i].size_bytes < size_bytes ? blocks[i].size_bytes : size_bytes);
		free(old);
	}
	return p;
}
