/*
 * 23-exe-defines-malloc.c - an executable that is its own allocator (hard
 * case 23).
 *
 * The hard situation: this program defines malloc, free, calloc, realloc,
 * memalign, aligned_alloc, posix_memalign, valloc, pvalloc and
 * malloc_usable_size itself, carving blocks out of a static pool.  The
 * executable comes first in the dynamic linker's lookup scope, ahead of
 * libc and of any LD_PRELOADed library, so every call - the program's own,
 * libc's internal ones (strdup, asprintf, stdio buffers) and those the
 * profiler's shim makes through its PLT - lands here.  A malloc-interposing
 * tool cannot see these allocations; worse, its lookup of "the real malloc"
 * can resolve back to the program's function (endless recursion, libleak
 * #10), or it can free its own libc blocks through this free, or give the
 * program blocks from another heap.  This pool refuses foreign pointers and
 * counts them instead of crashing.
 *
 * Expected facts (tests/cases/23-exe-defines-malloc.sh):
 *   1. exit status 0; stdout exactly
 *      "pool served 3000+ requests; foreign pointers: 0; all blocks from pool: yes"
 *      (1000 x strdup + free, 1000 x calloc(3, 24), 1000 x realloc
 *      growth steps, plus asprintf, posix_memalign, an fopen'ed stream);
 *   2. `mprof run` returns within 10 s;
 *   3. mprof says that the program's own allocator cannot be intercepted.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define POOL_BYTES (48u << 20)
#define PAGE 4096u

/* Every block is preceded by its tag; blocks are never reused. */
struct tag {
	size_t bytes;
	size_t check;
};
#define TAG_CHECK 0x706f6f6c7461ULL

static unsigned char pool[POOL_BYTES] __attribute__((aligned(PAGE)));
static size_t pool_top;		/* bytes of pool handed out so far */
static unsigned long requests;	/* blocks served */
static unsigned long foreign;	/* pointers given back that are not ours */

static int from_pool(const void *p)
{
	const unsigned char *c = p;

	return c >= pool && c < pool + POOL_BYTES;
}

/* Through an integer: the compiler knows what libc's malloc returns and
 * would warn about reading in front of "its" block. */
static struct tag *tag_of(void *p)
{
	return (struct tag *)((uintptr_t)p - sizeof(struct tag));
}

/* Reserves BYTES aligned to ALIGN (a power of two) after a tag. */
static void *carve(size_t bytes, size_t align)
{
	size_t old, start, end;

	if (align < sizeof(struct tag))
		align = sizeof(struct tag);
	if (align & (align - 1))
		return NULL;
	old = __atomic_load_n(&pool_top, __ATOMIC_RELAXED);
	for (;;) {
		start = (old + sizeof(struct tag) + align - 1) & ~(align - 1);
		end = start + bytes;
		if (end < start || end > POOL_BYTES)
			return NULL;
		if (__atomic_compare_exchange_n(&pool_top, &old, end, 0,
						__ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
			break;
	}
	tag_of(pool + start)->bytes = bytes;
	tag_of(pool + start)->check = TAG_CHECK;
	__atomic_add_fetch(&requests, 1, __ATOMIC_RELAXED);
	return pool + start;
}

static void note_foreign(void)
{
	__atomic_add_fetch(&foreign, 1, __ATOMIC_RELAXED);
}

void *malloc(size_t bytes)
{
	return carve(bytes, 16);
}

void free(void *p)
{
	/* Our blocks are simply abandoned; a foreign one is left alone. */
	if (p && !from_pool(p))
		note_foreign();
}

void *calloc(size_t n, size_t each)
{
	if (each && n > SIZE_MAX / each)
		return NULL;
	return carve(n * each, 16); /* the pool is zeroed and never reused */
}

void *realloc(void *p, size_t bytes)
{
	void *q;
	size_t had;

	if (!p)
		return malloc(bytes);
	if (!from_pool(p)) {
		note_foreign();
		return NULL;
	}
	if (!bytes)
		return NULL;
	q = malloc(bytes);
	if (q) {
		had = tag_of(p)->bytes;
		memcpy(q, p, had < bytes ? had : bytes);
	}
	return q;
}

void *memalign(size_t align, size_t bytes)
{
	return carve(bytes, align);
}

void *aligned_alloc(size_t align, size_t bytes)
{
	return carve(bytes, align);
}

int posix_memalign(void **out, size_t align, size_t bytes)
{
	void *p = carve(bytes, align);

	if (!p)
		return ENOMEM;
	*out = p;
	return 0;
}

void *valloc(size_t bytes)
{
	return carve(bytes, PAGE);
}

void *pvalloc(size_t bytes)
{
	return carve((bytes + PAGE - 1) & ~(size_t)(PAGE - 1), PAGE);
}

size_t malloc_usable_size(void *p)
{
	if (!p || !from_pool(p) || tag_of(p)->check != TAG_CHECK)
		return 0;
	return tag_of(p)->bytes;
}

/* ---- the program's own work ------------------------------------------- */

static void *volatile last[8];
static int outsiders; /* blocks we were handed that the pool did not make */

static void inspect(void *p)
{
	if (!p || !from_pool(p) || tag_of(p)->check != TAG_CHECK)
		outsiders++;
	last[(uintptr_t)p / 16 % 8] = p;
}

__attribute__((noinline)) static void busy_work(void)
{
	char *grown = NULL;

	for (int i = 0; i < 1000; i++) {
		char *copy = strdup("duplicated by libc, served by the pool");
		void *zeroed = calloc(3, 24);

		inspect(copy);
		inspect(zeroed);
		free(copy);
		grown = realloc(grown, 32 + (size_t)i * 8);
		inspect(grown);
	}
	free(grown);
}

__attribute__((noinline)) static void libc_helpers(void)
{
	char *text = NULL;
	void *aligned = NULL;
	FILE *f;

	if (asprintf(&text, "%s #%d", "formatted", 23) > 0)
		inspect(text);
	else
		outsiders++;
	if (posix_memalign(&aligned, 256, 100) == 0 && ((uintptr_t)aligned & 255) == 0)
		inspect(aligned);
	else
		outsiders++;
	f = fopen("/dev/null", "w");
	if (f) {
		fprintf(f, "%s\n", text); /* stdio buffers come from malloc too */
		fclose(f);
	}
	free(text);
	free(aligned);
}

int main(void)
{
	busy_work();
	libc_helpers();
	printf("pool served %s requests; foreign pointers: %lu; all blocks from pool: %s\n",
	       requests >= 3000 ? "3000+" : "too few", foreign, outsiders ? "no" : "yes");
	fflush(stdout);
	return requests >= 3000 && !foreign && !outsiders ? 0 : 1;
}
