/*
 * deep_bind_late_lib.c - the library tests/progs/deep_bind_late_main.c
 * loads with RTLD_DEEPBIND, linked with lazy binding: late_lib_alloc's
 * malloc is the C library's unless mprof points its slot at the shim.
 * late_lib_run calls back into the program (a stack through this library)
 * before this library's malloc slot is bound, and returns what it got.
 */
#include <stdlib.h>

__attribute__((noinline)) void *late_lib_alloc(size_t size_bytes)
{
	return malloc(size_bytes);
}

void *late_lib_run(void *(*alloc_cb)(size_t))
{
	return alloc_cb(48);
}
