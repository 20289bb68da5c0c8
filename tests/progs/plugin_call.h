/*
 * plugin_call.h - call_plugin for the test programs that load the plugins
 * of tests/progs/dlopen_chain_lib.c: the tests check that each plugin's
 * block is allocated from NAME_alloc, called from call_plugin.
 */
#ifndef MPROF_TESTS_PLUGIN_CALL_H
#define MPROF_TESTS_PLUGIN_CALL_H

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

/* Loads DIR/libNAME.so (RTLD_NOW) and calls NAME_alloc; returns the
 * handle.  Exits 2 with the loader's message when either is missing. */
__attribute__((noinline, unused)) static void *call_plugin(const char *dir, const char *name)
{
	char path[4096], symbol[64];
	void (*alloc)(void);
	void *h;

	snprintf(path, sizeof(path), "%s/lib%s.so", dir, name);
	snprintf(symbol, sizeof(symbol), "%s_alloc", name);
	h = dlopen(path, RTLD_NOW);
	alloc = h ? (void (*)(void))dlsym(h, symbol) : NULL;
	if (!alloc) {
		fprintf(stderr, "%s\n", dlerror());
		exit(2);
	}
	alloc();
	__asm__ volatile("" ::: "memory"); /* the call above is not a tail call */
	return h;
}

#endif
