/*
 * tests/progs/coroutine_stacks.c - coroutines (makecontext/swapcontext) on
 * small stacks that allocate at depth (tests/e2e/coroutine-stacks.sh).
 *
 * Usage: coroutine_stacks BYTES [used]
 * Runs a coroutine on a stack of BYTES taken from malloc.  100 times it
 * descends 8 frames in co_descend() and in co_leaf() makes one malloc(64)
 * that stays live, and one malloc(32) in co_temp() that it frees, then
 * switches back to main(), which switches to it again.  Prints "rounds 100",
 * and with "used" then "used N": the bytes of the stack ever written (it
 * is filled with a pattern first, and main() calls malloc and free once
 * before, so that the loader's lazy binding of them, 2.5 KiB of stack on a
 * processor with AVX-512, is not done on it).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>

#define ROUNDS 100

static ucontext_t main_ctx, co_ctx;
static void *volatile kept[ROUNDS];
static volatile int rounds;

__attribute__((noinline)) static void co_leaf(void)
{
	kept[rounds] = malloc(64);
}

__attribute__((noinline)) static void co_temp(void)
{
	void *volatile p = malloc(32);

	free(p);
}

__attribute__((noinline)) static void co_descend(int n)
{
	if (n) {
		co_descend(n - 1);
		__asm__ volatile("" ::: "memory");
		return;
	}
	co_leaf();
	co_temp();
}

static void co_body(void)
{
	for (;;) {
		co_descend(8);
		rounds++;
		swapcontext(&co_ctx, &main_ctx);
	}
}

int main(int argc, char **argv)
{
	size_t bytes;

	if (argc != 2 && argc != 3)
		return 2;
	bytes = (size_t)atol(argv[1]);
	if (getcontext(&co_ctx) != 0)
		return 2;
	co_ctx.uc_stack.ss_sp = malloc(bytes);
	co_ctx.uc_stack.ss_size = bytes;
	co_ctx.uc_link = NULL;
	if (!co_ctx.uc_stack.ss_sp)
		return 2;
	memset(co_ctx.uc_stack.ss_sp, 0xa5, bytes);
	if (argc == 3)
		free(malloc(1));
	makecontext(&co_ctx, co_body, 0);
	for (int i = 0; i < ROUNDS; i++)
		swapcontext(&main_ctx, &co_ctx);
	printf("rounds %d\n", rounds);
	if (argc == 3) {
		const unsigned char *stack = co_ctx.uc_stack.ss_sp;
		size_t low = 0;

		while (low < bytes && stack[low] == 0xa5)
			low++;
		printf("used %zu\n", bytes - low);
	}
	return 0;
}
