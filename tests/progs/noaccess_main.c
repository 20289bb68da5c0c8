/*
 * noaccess_main.c - loads the library argv[1] (tests/progs/noaccess_lib.c,
 * its first segment without access) and allocates 100 blocks of 32 bytes
 * through its noaccess_alloc, freeing each; prints "ok".
 *
 * Facts (tests/e2e/noaccess-segment.sh): stdout "ok", exit status 0; the
 * site at noaccess_inner: 100 allocations, 3200 bytes, none live at exit.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	void *(*alloc)(size_t);
	void *lib;

	if (argc < 2 || !(lib = dlopen(argv[1], RTLD_NOW)))
		return 1;
	alloc = (void *(*)(size_t))dlsym(lib, "noaccess_alloc");
	if (!alloc)
		return 1;
	for (int i = 0; i < 100; i++)
		free(alloc(32));
	printf("ok\n");
	return 0;
}
