/*
 * tests/progs/pool_blocks.c - a pool allocator of the program's own,
 * reported to mprof with mprof_pool_alloc/free/realloc (mprof.h); the facts
 * are exact (tests/e2e/pool-blocks.sh).
 *
 * pool_arena() mallocs one 64 KiB arena.  pool_get() carves 100 blocks of
 * 32 bytes from it, the first at the arena's own address, and reports each
 * (100 pool allocations, 3200 B).  pool_grow() moves blocks 0..9 to new
 * places of 64 bytes (10 pool reallocs: 10 allocations of 640 B at
 * pool_grow), pool_put() gives back every block but 3 of the first 50
 * (97 frees).  Then the arena itself is freed: nothing malloc'd is live, and
 * 3 pool blocks of pool_get are (96 B).  With "paused" the pool's work runs
 * between mprof_start(MPROF_RATE_EVERY) and mprof_stop(), except the frees,
 * which come after the stop, and 5 more blocks carved before the start
 * (pool_early: never recorded, their frees neither).
 */
#include <mprof.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BLOCKS 100

static char *arena;
static size_t used;

static __attribute__((noinline)) char *pool_arena(void)
{
	return malloc(64 << 10);
}

static char *carve(size_t size)
{
	char *p = arena + used;

	used += size;
	return p;
}

static __attribute__((noinline)) char *pool_get(void)
{
	char *p = carve(32);

	mprof_pool_alloc(p, 32);
	return p;
}

static __attribute__((noinline)) char *pool_early(void)
{
	char *p = carve(32);

	mprof_pool_alloc(p, 32);
	return p;
}

static __attribute__((noinline)) char *pool_grow(char *old)
{
	char *p = carve(64);

	memcpy(p, old, 32);
	mprof_pool_realloc(old, p, 64);
	return p;
}

static __attribute__((noinline)) void pool_put(char *p)
{
	mprof_pool_free(p);
}

int main(int argc, char **argv)
{
	int paused = argc > 1 && strcmp(argv[1], "paused") == 0;
	char *blocks[BLOCKS], *early[5], *first;

	arena = pool_arena();
	if (!arena)
		return 1;
	for (int i = 0; paused && i < 5; i++)
		early[i] = pool_early();
	if (paused)
		mprof_start(MPROF_RATE_EVERY);
	for (int i = 0; i < BLOCKS; i++)
		blocks[i] = pool_get();
	first = blocks[0];
	for (int i = 0; i < 10; i++)
		blocks[i] = pool_grow(blocks[i]);
	if (paused)
		mprof_stop();
	for (int i = 0; i < BLOCKS; i++)
		if (i != 20 && i != 30 && i != 40)
			pool_put(blocks[i]);
	for (int i = 0; paused && i < 5; i++)
		pool_put(early[i]);
	printf("pool_blocks %s: first block at the arena's address: %s\n",
	       paused ? "paused" : "running", first == arena ? "yes" : "no");
	free(arena);
	return 0;
}
