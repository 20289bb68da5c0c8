/*
 * deep_bind_lib.c - the library tests/progs/deep_bind_main.c loads with
 * RTLD_DEEPBIND, so its own malloc and free are the C library's unless
 * mprof points them at the shim.  deep_bind_lib_run first gets 3 blocks of
 * 48 bytes from the program (alloc_cb, whose stack passes through this
 * library), then allocates 5 blocks of 100 bytes itself
 * (deep_bind_lib_alloc), and frees all 8.
 */
#include <stdlib.h>

void *volatile deep_bind_lib_sink[8];

__attribute__((noinline)) void deep_bind_lib_alloc(void)
{
	for (int i = 3; i < 8; i++)
		deep_bind_lib_sink[i] = malloc(100);
}

void deep_bind_lib_run(void *(*alloc_cb)(size_t))
{
	for (int i = 0; i < 3; i++)
		deep_bind_lib_sink[i] = alloc_cb(48);
	deep_bind_lib_alloc();
	for (int i = 0; i < 8; i++)
		free(deep_bind_lib_sink[i]);
}
