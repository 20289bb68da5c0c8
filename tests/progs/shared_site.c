/*
 * shared_site.c - one allocation call site (the malloc in leaf) reached by
 * two routes, in turn, at the same stack position: the caller's return
 * address and stack address are the same for both, and only a return
 * address further up (into route_a or route_b) tells the two stacks apart.
 * The recorder's call-site cache (preload/stack_sites.h) keeps several
 * stacks per site, so both are found there, and each stays apart.
 *
 * Expected facts (tests/e2e/shared-site.sh):
 *   leaf called from route_a: 1000 allocations of 100 bytes, all freed;
 *   leaf called from route_b: 1000 allocations of 200 bytes, all freed.
 * stdout: "shared site: 1000 1000\n"
 */
#include <stdio.h>
#include <stdlib.h>

#define ROUNDS 1000

static void *volatile sink;
static volatile int count_a, count_b;

__attribute__((noinline)) static void leaf(size_t bytes)
{
	sink = malloc(bytes);
	free(sink);
	__asm__ volatile("" ::: "memory"); /* no tail call: keep the frame */
}

/* The two routes do the same with a counter of their own (so that the
 * compiler cannot fold them into one function): same frame size. */
__attribute__((noinline)) static void route_a(size_t bytes)
{
	count_a++;
	leaf(bytes);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void route_b(size_t bytes)
{
	count_b++;
	leaf(bytes);
	__asm__ volatile("" ::: "memory");
}

int main(void)
{
	for (int round = 0; round < ROUNDS; round++) {
		route_a(100);
		route_b(200);
	}
	printf("shared site: %d %d\n", count_a, count_b);
	return 0;
}
