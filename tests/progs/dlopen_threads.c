/*
 * dlopen_threads.c - THREADS threads load DIR/libplug0.so ...
 * DIR/libplug{N-1}.so between them at once (thread k the plugins k,
 * k + THREADS, ...), RTLD_NOW, each followed at once by a call of its
 * plugI_alloc (one block of (I + 1) * 8 bytes, never freed); after each
 * load a thread dlcloses its plugin before the last one when that one's
 * number is a multiple of 3, so that the threads rescan the modules while
 * others load and unload.  The plugins are tests/progs/dlopen_chain_lib.c.
 *
 * Usage: dlopen_threads DIR N THREADS (N up to 1000, THREADS up to 16).
 * Prints "loaded N".  Exits 2 when a library cannot be loaded or
 * unloaded.
 *
 * Expected facts (tests/e2e/module-threads.sh): plugI_alloc has one block
 * of (I + 1) * 8 bytes live at exit, its frame in libplugI.so, called from
 * call_plugin in the program.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "plugin_call.h"

static const char *dir;
static int plugins, threads;

static void *loader(void *arg)
{
	int k = (int)(long)arg, before = -1;
	void *before_h = NULL;

	for (int i = k; i < plugins; i += threads) {
		char name[32];
		void *h;

		snprintf(name, sizeof(name), "plug%d", i);
		h = call_plugin(dir, name);

		if (before >= 0 && before % 3 == 0 && dlclose(before_h) != 0) {
			fprintf(stderr, "cannot unload plugin %d: %s\n", before, dlerror());
			exit(2);
		}
		before = i;
		before_h = h;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t tid[16];

	if (argc != 4)
		return 2;
	dir = argv[1];
	plugins = atoi(argv[2]);
	threads = atoi(argv[3]);
	if (plugins < 1 || plugins > 1000 || threads < 1 || threads > 16)
		return 2;
	for (int k = 0; k < threads; k++)
		if (pthread_create(&tid[k], NULL, loader, (void *)(long)k) != 0)
			return 2;
	for (int k = 0; k < threads; k++)
		pthread_join(tid[k], NULL);
	printf("loaded %d\n", plugins);
	return 0;
}
