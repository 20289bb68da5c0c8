/*
 * cache_copies_main.c - LIB1 LIB2: loads two copies of
 * tests/progs/cache_copies_lib.c (the same build-id) and calls copy_one in
 * the first and copy_two in the second (LIB2 may name LIB1 again).  Exits
 * 0; 1 when a library or function cannot be found.
 */
#include <dlfcn.h>
#include <stddef.h>

/* Calls the function name of the library path; 0, or -1. */
static int call(const char *path, const char *name)
{
	void *h = dlopen(path, RTLD_NOW);
	void (*fn)(void) = h ? (void (*)(void))dlsym(h, name) : NULL;

	if (!fn)
		return -1;
	fn();
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	return call(argv[1], "copy_one") < 0 || call(argv[2], "copy_two") < 0;
}
