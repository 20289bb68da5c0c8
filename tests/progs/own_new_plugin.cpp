/*
 * own_new_plugin.cpp - a C++ library that tests/progs/own_new_forms.cpp
 * loads with dlopen and that allocates with operator new after the
 * program's start.  plugin_run: one malloc(24), freed (a recorded call
 * from the library, which has the recorder rescan the modules), then
 * plugin_objects: 60 new short[10] (20 bytes), all deleted; returns 60.
 */
#include <cstdlib>

static void *volatile sink;

__attribute__((noinline)) static int plugin_objects(void)
{
	int made = 0;

	for (int i = 0; i < 60; i++, made++) {
		short *s = new short[10];

		sink = s;
		delete[] s;
	}
	return made;
}

extern "C" int plugin_run(void)
{
	void *p = malloc(24);

	sink = p;
	free(p);
	return plugin_objects();
}
