/*
 * sample_sites.c - allocation sites of very different block sizes with known
 * totals, for the accuracy of byte sampling (tests/e2e/sampling.sh).
 *
 * Usage: sample_sites [SCALE]   (SCALE in 1..16, default 16: the totals
 * below are for 16; each site's count scales with SCALE / 16)
 * Expected facts (SCALE 16), every block freed right away except where said:
 *   site_tiny:   1048576 x malloc(32)        =   32 MiB (under 5%: not checked)
 *   site_small: 16777216 x malloc(64)        = 1024 MiB
 *   site_page:    262144 x malloc(4096)      = 1024 MiB
 *   site_half:      4096 x malloc(262144)    = 1024 MiB
 *   site_huge:        64 x malloc(8388608)   =  512 MiB
 *   site_kept:      1024 x malloc(1000), live at exit (about 1 MiB)
 * stdout: "sample_sites SCALE\n"
 */
#include <stdio.h>
#include <stdlib.h>

static void *volatile sink;
static void *kept[1024];

/* n blocks of size_bytes, each freed at once. */
static void churn(long n, size_t size_bytes, void *(*alloc)(size_t))
{
	for (long i = 0; i < n; i++) {
		sink = alloc(size_bytes);
		free(sink);
	}
}

__attribute__((noinline)) static void *site_tiny(size_t n) { return malloc(n); }
__attribute__((noinline)) static void *site_small(size_t n) { return malloc(n); }
__attribute__((noinline)) static void *site_page(size_t n) { return malloc(n); }
__attribute__((noinline)) static void *site_half(size_t n) { return malloc(n); }
__attribute__((noinline)) static void *site_huge(size_t n) { return malloc(n); }
__attribute__((noinline)) static void *site_kept(size_t n) { return malloc(n); }

int main(int argc, char **argv)
{
	long scale = argc > 1 ? atol(argv[1]) : 16;

	if (scale < 1 || scale > 16)
		return 2;
	/* interleaved in rounds, so no site sees only one part of a run */
	for (long round = 0; round < 4 * scale; round++) {
		churn(16384, 32, site_tiny);
		churn(262144, 64, site_small);
		churn(4096, 4096, site_page);
		churn(64, 262144, site_half);
		churn(1, 8388608, site_huge);
	}
	for (int i = 0; i < 1024; i++)
		kept[i] = site_kept(1000);
	printf("sample_sites %ld\n", scale);
	return 0;
}
