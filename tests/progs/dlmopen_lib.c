/*
 * dlmopen_lib.c - the library tests/progs/dlmopen_main.c loads: 5 blocks
 * of 1000 bytes from dlmopen_lib_alloc, never freed.
 */
#include <stdlib.h>

void *volatile dlmopen_lib_sink;

void dlmopen_lib_alloc(void)
{
	for (int i = 0; i < 5; i++)
		dlmopen_lib_sink = malloc(1000);
}
