/*
 * free_in_order.c - allocates 200 blocks of 48 bytes in make_block and frees
 * them oldest first, so most frees are of blocks the recorder no longer
 * counts among the thread's newest (it then looks for the block's size
 * class, which only the C library's allocator can tell it).
 *
 * Expected facts (tests/e2e/foreign-allocator.sh): make_block 200
 * allocations, 9600 bytes, 0 live at exit; stdout "freed 200 blocks\n".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BLOCKS 200

__attribute__((noinline)) static void *make_block(int i)
{
	char *p = malloc(48);

	if (p)
		memset(p, i, 48);
	return p;
}

int main(void)
{
	static void *blocks[BLOCKS];
	int made = 0;

	for (int i = 0; i < BLOCKS; i++)
		made += (blocks[i] = make_block(i)) != NULL;
	for (int i = 0; i < BLOCKS; i++)
		free(blocks[i]);
	printf("freed %d blocks\n", made);
	return 0;
}
