/*
 * deep_stacks.c - allocations at the bottom of recursions deeper than the
 * recorder's frame limit (run with --max-frames 16), so their call stacks
 * are truncated, repeated from the same call sites: the recorder's
 * call-site cache (preload/stack_sites.h) keeps truncated stacks too, with
 * the first frame past the kept ones, and must give each the same stack a
 * full walk would.  With "mixed", shallow stacks (not truncated) come in
 * between; with "deep", the recursions are 60 frames deeper, for the
 * default --max-frames (64).
 *
 * Expected facts (tests/e2e/deep-stacks.sh), with --max-frames 16:
 *   depths 20, 40 and 60 (300, 400 and 500 bytes): one truncated stack, its
 *   16 frames alloc_leaf and 15 descend, 3000 allocations, 1200000 bytes,
 *   all freed; no frame of main in it.
 *   mixed only: depth 2 (100 bytes) and depth 5 (200 bytes): a site each
 *   through main, 1000 allocations each, all freed.
 *   deep, with the default --max-frames 64: depths 80, 100 and 120, one
 *   truncated stack (alloc_leaf and 63 descend), the same counts.
 * stdout: "deep stacks: done\n"
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROUNDS 1000

static void *volatile sink;

__attribute__((noinline)) static void alloc_leaf(size_t bytes)
{
	char *p = malloc(bytes);

	if (p)
		memset(p, 1, bytes);
	sink = p;
	free(p);
	__asm__ volatile("" ::: "memory"); /* no tail call: keep the frame */
}

__attribute__((noinline)) static void descend(int depth, size_t bytes)
{
	if (depth == 0)
		alloc_leaf(bytes);
	else
		descend(depth - 1, bytes);
	__asm__ volatile("" ::: "memory"); /* no tail call: keep the frame */
}

int main(int argc, char **argv)
{
	int mixed = argc > 1 && strcmp(argv[1], "mixed") == 0;
	int more = argc > 1 && strcmp(argv[1], "deep") == 0 ? 60 : 0;

	for (int round = 0; round < ROUNDS; round++) {
		descend(20 + more, 300);
		if (mixed)
			descend(2, 100);
		descend(40 + more, 400);
		if (mixed)
			descend(5, 200);
		descend(60 + more, 500);
	}
	printf("deep stacks: done\n");
	return 0;
}
