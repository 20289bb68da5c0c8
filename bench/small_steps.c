/* bench/small_steps.c - one step of bench/short_processes.py's build-like
 * workload: a short dynamic program that allocates 300 blocks of 16-315
 * bytes and frees them, as a small build tool might. */
#include <stdlib.h>

int main(void)
{
	void *blocks[300];

	for (int i = 0; i < 300; i++)
		blocks[i] = malloc(16 + (size_t)i);
	for (int i = 0; i < 300; i++)
		free(blocks[i]);
	return 0;
}
