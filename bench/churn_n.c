/*
 * bench/churn_n.c - N allocations with a bounded live set, for measuring how
 * `mprof report` scales with the number of events: usage churn_n N.
 * 64 allocation sites (a switch over noinline functions), sizes 16..1040
 * bytes, a ring of 4096 live blocks (each allocation frees the block it
 * replaces), so live blocks, sites and stacks stay constant while events
 * grow with N.  Prints the number of allocations.
 */
#include <stdio.h>
#include <stdlib.h>

#define LIVE 4096

static void *slots[LIVE];

#define SITE(k) static __attribute__((noinline)) void *site_##k(size_t n) { return malloc(n + k); }
#define S8(a) SITE(a##0) SITE(a##1) SITE(a##2) SITE(a##3) SITE(a##4) SITE(a##5) SITE(a##6) SITE(a##7)
S8(1) S8(2) S8(3) S8(4) S8(5) S8(6) S8(7) S8(8)

static void *(*const sites[64])(size_t) = {
#define R8(a) site_##a##0, site_##a##1, site_##a##2, site_##a##3, site_##a##4, site_##a##5, \
	site_##a##6, site_##a##7,
	R8(1) R8(2) R8(3) R8(4) R8(5) R8(6) R8(7) R8(8)
};

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000000;
	unsigned long x = 88172645463325252ul;

	for (unsigned long i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		free(slots[i % LIVE]);
		slots[i % LIVE] = sites[x % 64]((x >> 8) % 1024 + 16);
	}
	for (unsigned i = 0; i < LIVE; i++)
		free(slots[i]);
	printf("allocations: %lu\n", n);
	return 0;
}
