/*
 * own_new_reload.cpp - PLUGIN_A PLUGIN_B: loads PLUGIN_A (a copy of
 * tests/progs/own_new_plugin.cpp) with dlopen(RTLD_LAZY), calls its
 * plugin_run (60 new short[10], deleted) and closes it; then the same with
 * PLUGIN_B, another copy, which the loader likely maps where PLUGIN_A was;
 * then PLUGIN_A again.  Behind an allocator that serves new itself, mprof
 * must wrap each one's new and delete after each load though its module
 * table held a module at that address (tests/e2e/real3-foreign-new.sh).
 * Writes "made 180" and exits 0; 1 when a plugin cannot be loaded.
 */
#include <cstdio>
#include <dlfcn.h>

static int *volatile keep;

static int run_plugin(const char *path)
{
	void *h = dlopen(path, RTLD_LAZY);
	int (*run)(void) = h ? (int (*)(void))dlsym(h, "plugin_run") : nullptr;
	int made;

	if (!run)
		return -1;
	made = run();
	dlclose(h);
	return made;
}

int main(int argc, char **argv)
{
	int made = 0;

	if (argc != 3)
		return 2;
	keep = new int(1); /* the program itself uses operator new */
	for (int i = 0; i < 3; i++) {
		int n = run_plugin(argv[i == 1 ? 2 : 1]);

		if (n < 0)
			return 1;
		made += n;
	}
	delete keep;
	std::printf("made %d\n", made);
	return 0;
}
