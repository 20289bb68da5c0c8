/*
 * tests/progs/limit_blocks.h - the allocations of the programs that lower
 * their address-space limit (lowered_limit.c, unseen_limit.c): blocks of
 * CHUNK_BYTES kept in alloc_chunks, and THREAD_BLOCKS blocks of
 * THREAD_BLOCK_BYTES made and freed in thread_blocks by each of THREADS
 * threads.  Each block is written, so that it takes memory.
 */
#ifndef MPROF_TESTS_LIMIT_BLOCKS_H
#define MPROF_TESTS_LIMIT_BLOCKS_H

#include <stdlib.h>
#include <string.h>

#define CHUNK_BYTES (1u << 20)
#define THREADS 4
#define THREAD_BLOCKS 10
#define THREAD_BLOCK_BYTES (64u << 10)

/* Makes n blocks of CHUNK_BYTES into chunks; returns how many were made. */
static __attribute__((noinline)) int alloc_chunks(void **chunks, int n)
{
	int made = 0;

	for (int i = 0; i < n; i++) {
		chunks[i] = malloc(CHUNK_BYTES);
		if (chunks[i]) {
			memset(chunks[i], i, CHUNK_BYTES);
			made++;
		}
	}
	return made;
}

/* Makes and frees THREAD_BLOCKS blocks; returns how many were made. */
static __attribute__((noinline)) int thread_blocks(void)
{
	void *blocks[THREAD_BLOCKS];
	int made = 0;

	for (int i = 0; i < THREAD_BLOCKS; i++) {
		blocks[i] = malloc(THREAD_BLOCK_BYTES);
		if (blocks[i]) {
			memset(blocks[i], 1, THREAD_BLOCK_BYTES);
			made++;
		}
	}
	for (int i = 0; i < THREAD_BLOCKS; i++)
		free(blocks[i]);
	return made;
}

/* A thread: thread_blocks' count into *(int *)arg. */
static void *thread_main(void *arg)
{
	*(int *)arg = thread_blocks();
	return NULL;
}

#endif
