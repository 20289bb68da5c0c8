/*
 * time_namespace.c - a program that tells its CLOCK_MONOTONIC's offset
 * from the launcher's nothing about itself: it makes 100 blocks of 1000 B
 * in make_blocks, frees 50 of them, prints "ok" and exits 0.  Run by
 * `unshare --time --monotonic -600`, in a time namespace whose clock is
 * 600 s behind.  Facts: tests/e2e/time-namespace.sh.
 */
#include <stdio.h>
#include <stdlib.h>

void *time_namespace_keep[100]; /* not static: the blocks stay made */

static __attribute__((noinline)) void make_blocks(void)
{
	for (int i = 0; i < 100; i++)
		time_namespace_keep[i] = malloc(1000);
}

int main(void)
{
	make_blocks();
	for (int i = 0; i < 50; i++)
		free(time_namespace_keep[i]);
	puts("ok");
	return 0;
}
