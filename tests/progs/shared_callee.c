/*
 * shared_callee.c - one allocating function called along four call paths,
 * so four sites share their first frame and differ only in their callers:
 * for the HTML report's table of sites, which must tell them apart
 * (tests/e2e/html-site-rows.sh).
 *
 * Expected facts: grab() makes every allocation, malloc(100), all live at
 * exit; grab <- from_parse <- main: 3; grab <- from_load <- main: 5;
 * grab <- mid <- outer_a <- main: 7; grab <- mid <- outer_b <- main: 9.
 * No stdio, whose buffer would be one more site.
 */
#include <stdlib.h>

static void *volatile keep[32];
static int kept;

__attribute__((noinline)) static void grab(void)
{
	keep[kept] = malloc(100); /* GRAB_LINE */
	kept++;
}

__attribute__((noinline)) static void from_parse(int n)
{
	for (int i = 0; i < n; i++)
		grab();
	__asm__ volatile("" ::: "memory"); /* no tail call: keep this frame */
}

__attribute__((noinline)) static void from_load(int n)
{
	for (int i = 0; i < n; i++)
		grab();
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void mid(int n)
{
	for (int i = 0; i < n; i++)
		grab();
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void outer_a(void)
{
	mid(7);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void outer_b(void)
{
	mid(9);
	__asm__ volatile("" ::: "memory");
}

int main(void)
{
	from_parse(3);
	from_load(5);
	outer_a();
	outer_b();
	return 0;
}
