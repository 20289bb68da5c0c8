/*
 * many_stacks.c - hundreds of thousands of distinct call stacks: rec
 * recurses DEPTH levels through four functions (a, b, c, e), so each call of
 * rec from main reaches 4^DEPTH leaves by distinct paths, and main calls it
 * from two places; every leaf keeps one block of 16 bytes.
 * Facts (DEPTH 9): 524288 allocations of 16 bytes in leaf, each in a site of
 * its own, all live at exit.
 */
#include <stdio.h>
#include <stdlib.h>

#define DEPTH 9
#define LEAVES (2 << (2 * DEPTH))

static void *kept[LEAVES];
static int kept_count;

__attribute__((noinline)) static void leaf(void)
{
	kept[kept_count++] = malloc(16);
}

static void rec(int depth);

/* The empty asm keeps each call from being a tail call: every level is a
 * frame of its own. */
__attribute__((noinline)) static void a(int depth) { rec(depth); __asm__ volatile(""); }
__attribute__((noinline)) static void b(int depth) { rec(depth); __asm__ volatile(""); }
__attribute__((noinline)) static void c(int depth) { rec(depth); __asm__ volatile(""); }
__attribute__((noinline)) static void e(int depth) { rec(depth); __asm__ volatile(""); }

__attribute__((noinline)) static void rec(int depth)
{
	if (depth == 0) {
		leaf();
		return;
	}
	a(depth - 1);
	b(depth - 1);
	c(depth - 1);
	e(depth - 1);
	__asm__ volatile("");
}

int main(void)
{
	size_t kept_ok = 0;

	rec(DEPTH);
	rec(DEPTH);
	for (int i = 0; i < kept_count; i++)
		kept_ok += kept[i] != NULL;
	printf("kept %zu blocks\n", kept_ok);
	return 0;
}
