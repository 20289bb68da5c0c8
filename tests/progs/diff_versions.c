/*
 * diff_versions.c - two versions of one program for `mprof diff` tests,
 * built from this file into two folders: without and with -DVERSION_B.
 *
 * Facts (A / B):
 *   grow:     10 / 30 blocks of 100 B, freed      (allocations +20, +2000 B)
 *   leak_new: -  / 5 blocks of 512 B, leaked      (new site, leaked +2560 B)
 *   dropped:  20 / - blocks of 64 B, freed        (vanished site)
 *   steady:   50 / 50 blocks of 32 B, freed       (the same; B has it on
 *             other lines, so --match line sees it vanish and come anew)
 * stdout: "diff_versions A" or "diff_versions B"
 */
#include <stdio.h>
#include <stdlib.h>

static void *volatile keep;

__attribute__((noinline)) static void grow(int n)
{
	for (int i = 0; i < n; i++) {
		keep = malloc(100);
		free(keep);
	}
}

#ifdef VERSION_B
__attribute__((noinline)) static void leak_new(void)
{
	for (int i = 0; i < 5; i++)
		keep = malloc(512);
}
#else
__attribute__((noinline)) static void dropped(void)
{
	for (int i = 0; i < 20; i++) {
		keep = malloc(64);
		free(keep);
	}
}
#endif

#ifdef VERSION_B
/* B's edit moved steady() down (both are built from this one file). */
#line 200
#endif
__attribute__((noinline)) static void steady(void)
{
	for (int i = 0; i < 50; i++) {
		keep = malloc(32);
		free(keep);
	}
}

int main(void)
{
#ifdef VERSION_B
	grow(30);
	leak_new();
	puts("diff_versions B");
#else
	grow(10);
	dropped();
	puts("diff_versions A");
#endif
	steady();
	return 0;
}
