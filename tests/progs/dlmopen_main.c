/*
 * dlmopen_main.c - loads LIB (tests/progs/dlmopen_lib.c) and calls its
 * dlmopen_lib_alloc (tests/e2e/dlmopen-namespace.sh):
 *   dlmopen_main new-close LIB   dlmopen(LM_ID_NEWLM), dlclose before the end
 *   dlmopen_main new-keep LIB    dlmopen(LM_ID_NEWLM), still loaded at exit
 *   dlmopen_main base LIB        dlopen: the default namespace
 * Then 7 blocks of 333 bytes from main_alloc (never freed); prints
 * "MODE done" and exits with status 0.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *volatile dlmopen_main_sink;

__attribute__((noinline)) void main_alloc(void)
{
	for (int i = 0; i < 7; i++)
		dlmopen_main_sink = malloc(333);
}

int main(int argc, char **argv)
{
	void *h;
	void (*fn)(void);

	if (argc != 3)
		return 2;
	h = strcmp(argv[1], "base") == 0 ? dlopen(argv[2], RTLD_NOW)
					 : dlmopen(LM_ID_NEWLM, argv[2], RTLD_NOW);
	if (!h) {
		fprintf(stderr, "%s\n", dlerror());
		return 1;
	}
	fn = (void (*)(void))dlsym(h, "dlmopen_lib_alloc");
	if (!fn)
		return 1;
	fn();
	main_alloc();
	if (strcmp(argv[1], "new-keep") != 0)
		dlclose(h);
	printf("%s done\n", argv[1]);
	return 0;
}
