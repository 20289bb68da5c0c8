/*
 * old_block_reuse.c - frees blocks long after they were allocated (so the
 * recorder no longer has them among its newest blocks) and allocates a
 * block of the same size right after each free, which the C library serves
 * from the chunk just freed.  The trace names such blocks by size class
 * (mprof-trace(5), "Block references"); a recorder and a reader that
 * disagreed about those references would show here as unmatched frees,
 * wrong live blocks or a corrupt lap.
 *
 * make_block allocates OLD_BLOCKS blocks, sizes cycling through 24, 40,
 * 100, 200 and 600 bytes; in each of ROUNDS rounds they are freed in the
 * order i * 7 mod OLD_BLOCKS (a permutation), each followed by remake_block
 * of the same size.  Then the remade blocks of even index are freed, a burst
 * of frees and callocs of one size class reuses chunks out of the
 * per-thread cache's order, and TEMPS blocks are freed right after their
 * allocation (named by the newest-block reference), enough records for a
 * small ring to wrap several times in the middle of them.
 *
 * Expected facts (tests/e2e/block-references.sh):
 *   make_block:   3000 allocations, 578400 bytes, 0 live at exit;
 *   remake_block: 12000 allocations, 2313600 bytes, 1500 blocks / 289200
 *                 bytes live at exit (the odd indexes);
 *   burst_block:  534 allocations (calloc, 40 bytes each): 21360 bytes,
 *                 0 live at exit;
 *   temp_block:   20000 allocations, 640000 bytes, all temporary;
 *   the report has 0 unmatched frees.
 * stdout: "reused 3000 blocks\n"
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OLD_BLOCKS 3000
#define ROUNDS 4
#define BURST 400
#define TEMPS 20000

static const size_t sizes[5] = { 24, 40, 100, 200, 600 };
static void *blocks[OLD_BLOCKS];

__attribute__((noinline)) static void *make_block(size_t bytes)
{
	void *p = malloc(bytes);

	memset(p, 1, bytes);
	return p;
}

__attribute__((noinline)) static void *remake_block(size_t bytes)
{
	void *p = malloc(bytes);

	memset(p, 2, bytes);
	return p;
}

__attribute__((noinline)) static void *burst_block(void)
{
	return calloc(1, 40);
}

__attribute__((noinline)) static void *temp_block(int i)
{
	char *p = malloc(32);

	p[0] = (char)i;
	return p;
}

int main(void)
{
	void *burst[BURST];

	for (int i = 0; i < OLD_BLOCKS; i++)
		blocks[i] = make_block(sizes[i % 5]);
	for (int r = 0; r < ROUNDS; r++)
		for (int i = 0; i < OLD_BLOCKS; i++) {
			int j = (int)((i * 7L) % OLD_BLOCKS);

			free(blocks[j]);
			blocks[j] = remake_block(sizes[j % 5]);
		}
	for (int i = 0; i < OLD_BLOCKS; i += 2)
		free(blocks[i]);
	/* calloc does not take from the per-thread cache: it reuses freed
	 * chunks in another order than the cache would */
	for (int i = 0; i < BURST; i++)
		burst[i] = burst_block();
	for (int i = 0; i < BURST; i += 3)
		free(burst[i]);
	for (int i = 0; i < BURST; i += 3)
		burst[i] = burst_block();
	for (int i = 0; i < BURST; i++)
		free(burst[i]);
	for (int i = 0; i < TEMPS; i++)
		free(temp_block(i));
	printf("reused %d blocks\n", OLD_BLOCKS);
	return 0;
}
