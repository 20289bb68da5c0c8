/*
 * cache_copies_lib.c - a library of which tests/e2e/symbol-cache-copies.sh
 * loads copies (one build-id): copy_one leaves a block of 100 bytes live,
 * copy_two one of 200.
 */
#include <stdlib.h>

void *volatile copy_sink[2];

__attribute__((noinline)) void copy_one(void)
{
	copy_sink[0] = malloc(100);
}

__attribute__((noinline)) void copy_two(void)
{
	copy_sink[1] = malloc(200);
}
