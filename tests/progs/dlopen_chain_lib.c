/*
 * dlopen_chain_lib.c - one plugin of tests/progs/dlopen_chain.c, built with
 * -DPLUG=NAME -DPLUG_BYTES=N: NAME_alloc leaves one block of N bytes live.
 */
#include <stdlib.h>

#define GLUE(a, b) a##b
#define NAME(p, s) GLUE(p, s)

void *NAME(PLUG, _block);

void NAME(PLUG, _alloc)(void)
{
	NAME(PLUG, _block) = malloc(PLUG_BYTES); /* PLUG_MALLOC_LINE */
}
