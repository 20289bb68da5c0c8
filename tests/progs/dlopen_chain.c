/*
 * dlopen_chain.c - loads DIR/libplug0.so ... DIR/libplug{N-1}.so one by one
 * (RTLD_NOW), each followed at once by a call of its plugI_alloc (one
 * block of (I + 1) * 8 bytes, never freed), so that mprof rescans the
 * modules before each library's first allocation; then dlcloses plugin
 * N - 1, loads DIR/libreload.so, which the loader normally maps where
 * plug{N-1} was, and calls reload_alloc (one block of 1000 bytes); then
 * dlcloses plugins 10 and 20 and loads plugin 10 again (normally at its
 * old address), calling plug10_alloc a second time.  Last it forks a
 * child that loads DIR/libchild.so and calls child_alloc (one block of
 * 2000 bytes) and waits for it.
 * The plugins are one source built with -DPLUG=plugI -DPLUG_BYTES=...
 * (tests/progs/dlopen_chain_lib.c).
 *
 * Usage: dlopen_chain DIR N (N from 21 to 1000).  Prints "loaded N,
 * closed 3, reload at the last one's address: yes, plug10 at its own: yes"
 * ("no" when the loader put a library elsewhere this time).  Exits 2 when
 * a library cannot be loaded or unloaded.
 *
 * Expected facts (tests/e2e/module-deltas.sh): plugI_alloc has one block of
 * (I + 1) * 8 bytes live at exit (plug10_alloc two), its frame in
 * libplugI.so, called from call_plugin in the program; reload_alloc one
 * block of 1000 bytes, in libreload.so, called from call_plugin.  The
 * child inherits every block above and adds child_alloc's, in
 * libchild.so.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "plugin_call.h"

#define MAX_PLUGINS 1000

static void *handles[MAX_PLUGINS];

static uintptr_t base_of(void *h)
{
	struct link_map *map = NULL;

	return dlinfo(h, RTLD_DI_LINKMAP, &map) == 0 && map ? map->l_addr : 0;
}

static void unload(int i)
{
	if (dlclose(handles[i]) != 0) {
		fprintf(stderr, "cannot unload plugin %d: %s\n", i, dlerror());
		exit(2);
	}
}

int main(int argc, char **argv)
{
	char name[32];
	uintptr_t last_base, base10;
	void *reload;
	int n, status;
	pid_t child;

	if (argc != 3 || (n = atoi(argv[2])) < 21 || n > MAX_PLUGINS)
		return 2;
	for (int i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "plug%d", i);
		handles[i] = call_plugin(argv[1], name);
	}
	last_base = base_of(handles[n - 1]);
	base10 = base_of(handles[10]);
	unload(n - 1);
	reload = call_plugin(argv[1], "reload");
	unload(10);
	unload(20);
	handles[10] = call_plugin(argv[1], "plug10");
	printf("loaded %d, closed 3, reload at the last one's address: %s, plug10 at its own: %s\n",
	       n, base_of(reload) == last_base ? "yes" : "no",
	       base_of(handles[10]) == base10 ? "yes" : "no");
	fflush(stdout);
	child = fork();
	if (child == 0) {
		call_plugin(argv[1], "child");
		exit(0);
	}
	if (child < 0 || waitpid(child, &status, 0) != child || status != 0)
		return 2;
	return 0;
}
