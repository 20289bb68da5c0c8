/*
 * dlopen_reuse.c - THREADS threads each load, call and unload plugins of
 * DIR/libplug0.so ... DIR/libplug{N-1}.so ROUNDS times, in an order of their
 * own (RTLD_NOW; each load followed by a call of its plugI_alloc, one block
 * of (I + 1) * 8 bytes, which the thread then frees, and its dlclose).
 * Thread k uses the plugins k, k + THREADS, ... only: a plugin keeps its
 * block in a global, which two threads calling it at once would free
 * twice.  The plugins are the same size, so the loader keeps mapping one
 * where another (another thread's) was just unloaded, often while the
 * thread that unloaded it is still inside dlclose.  The plugins are
 * tests/progs/dlopen_chain_lib.c.
 *
 * Usage: dlopen_reuse DIR N THREADS ROUNDS (N up to 1000, a multiple of
 * THREADS; THREADS up to 16).
 * Prints "called C" (C = THREADS * ROUNDS).  Exits 2 when a library cannot be
 * loaded or unloaded.
 *
 * Expected facts (tests/e2e/module-reuse.sh): every block of the site of
 * plugI_alloc is (I + 1) * 8 bytes, framed in libplugI.so; the sites of the
 * plugins hold C blocks between them, none live at exit.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "plugin_call.h"

static const char *dir;
static int plugins, threads, rounds;

/* Loads DIR/libplugI.so and calls plugI_alloc (call_plugin), then frees
 * its block and unloads it. */
static void use_plugin(int i)
{
	char name[32], block_name[64];
	void **block;
	void *h;

	snprintf(name, sizeof(name), "plug%d", i);
	snprintf(block_name, sizeof(block_name), "plug%d_block", i);
	h = call_plugin(dir, name);
	block = (void **)dlsym(h, block_name);
	if (!block) {
		fprintf(stderr, "%s\n", dlerror());
		exit(2);
	}
	free(*block);
	if (dlclose(h) != 0) {
		fprintf(stderr, "cannot unload plugin %d: %s\n", i, dlerror());
		exit(2);
	}
}

static void *caller(void *arg)
{
	unsigned state = 2654435761u * (unsigned)(long)arg + 1;

	for (int r = 0; r < rounds; r++) {
		state = state * 1103515245u + 12345u; /* the thread's own order */
		use_plugin((int)(long)arg +
			   threads * (int)((state >> 16) % (unsigned)(plugins / threads)));
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t tids[16];

	if (argc != 5)
		return 2;
	dir = argv[1];
	plugins = atoi(argv[2]);
	threads = atoi(argv[3]);
	rounds = atoi(argv[4]);
	if (threads < 1 || threads > 16 || plugins < threads || plugins > 1000 ||
	    plugins % threads != 0 || rounds < 1)
		return 2;
	for (long k = 0; k < threads; k++)
		if (pthread_create(&tids[k], NULL, caller, (void *)k) != 0)
			return 2;
	for (int k = 0; k < threads; k++)
		pthread_join(tids[k], NULL);
	printf("called %d\n", threads * rounds);
	return 0;
}
