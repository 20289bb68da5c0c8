/*
 * many_routes.c - one allocation call site (the malloc in leaf) reached by
 * 16 routes in turn, at the same stack position: only a return address
 * further up (into route_0 .. route_15) tells the 16 stacks apart, as in
 * an allocator wrapper called from many places.  The recorder's call-site
 * cache (preload/stack_sites.h) keeps 16 stacks per set of sites, so every
 * route is found there once seen; each stays a stack of its own.
 *
 * Expected facts (tests/e2e/many-routes.sh):
 *   leaf called from route_K (K = 0..15): 200 allocations of 100 + K
 *   bytes, all freed.
 * stdout: "many routes: 3200\n"
 */
#include <stdio.h>
#include <stdlib.h>

#define ROUNDS 200

static void *volatile sink;
static volatile int counts[16];

__attribute__((noinline)) static void leaf(size_t bytes)
{
	sink = malloc(bytes);
	free(sink);
	__asm__ volatile("" ::: "memory"); /* no tail call: keep the frame */
}

/* Each route counts in its own counter (so that the compiler cannot fold
 * them into one function): the same frame size for all. */
#define ROUTE(k)                                                  \
	__attribute__((noinline)) static void route_##k(void)     \
	{                                                         \
		counts[k]++;                                      \
		leaf(100 + k);                                    \
		__asm__ volatile("" ::: "memory");                \
	}
ROUTE(0) ROUTE(1) ROUTE(2) ROUTE(3) ROUTE(4) ROUTE(5) ROUTE(6) ROUTE(7)
ROUTE(8) ROUTE(9) ROUTE(10) ROUTE(11) ROUTE(12) ROUTE(13) ROUTE(14) ROUTE(15)

static void (*const routes[16])(void) = {
	route_0, route_1, route_2,  route_3,  route_4,  route_5,  route_6,  route_7,
	route_8, route_9, route_10, route_11, route_12, route_13, route_14, route_15,
};

int main(void)
{
	int total = 0;

	for (int round = 0; round < ROUNDS; round++)
		for (int k = 0; k < 16; k++)
			routes[k]();
	for (int k = 0; k < 16; k++)
		total += counts[k];
	printf("many routes: %d\n", total);
	return 0;
}
