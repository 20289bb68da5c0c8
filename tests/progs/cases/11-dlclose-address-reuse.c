/*
 * 11-dlclose-address-reuse.c - hard case 11: a plugin leaks and is unloaded,
 * and the next plugin is mapped at the address the first one had.
 *
 * The program dlopen()s libalpha.so, lets it leak (alpha_run), dlclose()s
 * it, then does the same with libomega.so (omega_run).  Both are built
 * from 11-dlclose-address-reuse-plugin.c, so they have the same layout,
 * and the loader normally puts omega into the range alpha just gave back:
 * the raw return addresses of the two plugins' stacks are then equal.
 *
 * Why profilers get this wrong: a profiler that keeps raw addresses and
 * symbolizes them when it reports, against the module list of the end of
 * the run (or of some other moment), finds alpha's frames in no module
 * ("unknown module", the complaint of google/sanitizers#89) or, worse,
 * in omega, which is mapped there by then - and shows alpha's leaks as
 * omega's (or the reverse).  Each address must be resolved against the
 * modules that were loaded when the allocation happened.
 *
 * Usage: 11-dlclose-address-reuse [DIR]  (DIR holds the two plugins,
 * default ".").
 *
 * Expected facts (tests/cases/11-dlclose-address-reuse.sh):
 *   1. exit status 0, stdout exactly
 *      "alpha leaked 5 blocks, omega leaked 3 blocks, same base: yes,
 *      same offsets: yes" (one line).  "same base: no" means the loader
 *      put omega elsewhere this time (the run did not reuse the address;
 *      the test then runs it again).
 *   2. alpha_stash: 5 allocations of 4000 bytes (20000), all live at exit;
 *      module libalpha.so, called from alpha_run, which is called from
 *      load_and_run.
 *   3. omega_stash: 3 allocations of 1500 bytes (4500), all live at exit;
 *      module libomega.so, called from omega_run, called from load_and_run.
 *   4. no stack holds a function of both plugins (alpha_run with
 *      omega_stash, omega_run with alpha_stash), and no frame of these
 *      stacks in the plugins or the program is left without a name; the
 *      stash frames point at the line marked PLUGIN_MALLOC_LINE of the
 *      plugin's source.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* What one plugin's visit left behind. */
struct visit {
	uintptr_t base;		/* load address (link_map l_addr) */
	uintptr_t run_offset;	/* address of PLUGIN_run minus base */
	int leaked;		/* what PLUGIN_run returned */
};

__attribute__((noinline)) static struct visit load_and_run(const char *dir, const char *name)
{
	char path[4096], symbol[64];
	struct visit v = { 0, 0, -1 };
	struct link_map *map = NULL;
	int (*run)(void);
	void *handle;

	snprintf(path, sizeof(path), "%s/lib%s.so", dir, name);
	snprintf(symbol, sizeof(symbol), "%s_run", name);
	handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (handle == NULL) {
		fprintf(stderr, "cannot load %s: %s\n", path, dlerror());
		exit(2);
	}
	run = (int (*)(void))dlsym(handle, symbol);
	if (run == NULL || dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0 || map == NULL) {
		fprintf(stderr, "%s: no %s or no link map\n", path, symbol);
		exit(2);
	}
	v.base = map->l_addr;
	v.run_offset = (uintptr_t)run - v.base;
	v.leaked = run();
	__asm__ volatile("" ::: "memory"); /* the call above is not a tail call */
	if (dlclose(handle) != 0) {
		fprintf(stderr, "cannot unload %s: %s\n", path, dlerror());
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : ".";
	struct visit alpha = load_and_run(dir, "alpha");
	struct visit omega = load_and_run(dir, "omega");

	printf("alpha leaked %d blocks, omega leaked %d blocks, same base: %s, same offsets: %s\n",
	       alpha.leaked, omega.leaked, alpha.base == omega.base ? "yes" : "no",
	       alpha.run_offset == omega.run_offset ? "yes" : "no");
	return 0;
}
