/*
 * 11-dlclose-address-reuse-plugin.c - the plugin of hard case 11, built
 * twice from this one file with different names and numbers:
 *
 *   libalpha.so: -DPLUGIN=alpha -DPLUGIN_BLOCKS=5 -DPLUGIN_BYTES=4000
 *                -DPLUGIN_FRAME_BYTES=4000
 *   libomega.so: -DPLUGIN=omega -DPLUGIN_BLOCKS=3 -DPLUGIN_BYTES=1500
 *                -DPLUGIN_FRAME_BYTES=200
 *
 * The two names have the same length and the numbers need the same
 * instruction encodings, so the two libraries have the same layout: every
 * function sits at the same offset in both.  When omega is loaded where
 * alpha was, its return addresses are the very ones alpha's stacks hold,
 * but the stash's frame differs (4 KiB against 200 bytes of locals): an
 * unwinder that kept alpha's rule for that return address reads omega's
 * caller from the wrong place.
 *
 * Each plugin exports PLUGIN_run, which calls PLUGIN_stash PLUGIN_BLOCKS
 * times; PLUGIN_stash leaks a block of PLUGIN_BYTES (the line marked
 * PLUGIN_MALLOC_LINE) and returns 1.  PLUGIN_run returns the number of
 * blocks it leaked.  See 11-dlclose-address-reuse.c for the facts.
 */
#include <stdlib.h>

#if !defined(PLUGIN) || !defined(PLUGIN_BLOCKS) || !defined(PLUGIN_BYTES)
#error "build with -DPLUGIN=name -DPLUGIN_BLOCKS=n -DPLUGIN_BYTES=n"
#endif

#define GLUE2(a, b) a##b
#define GLUE(a, b) GLUE2(a, b)
#define STASH GLUE(PLUGIN, _stash)
#define RUN GLUE(PLUGIN, _run)

int RUN(void);

/* The blocks stay reachable only from here while the plugin is loaded;
 * once it is unloaded they are plain leaks. */
static void *volatile stash_slots[PLUGIN_BLOCKS];

__attribute__((noinline)) static int STASH(int slot)
{
#ifdef PLUGIN_FRAME_BYTES
	volatile char frame[PLUGIN_FRAME_BYTES];

	frame[0] = (char)slot;
#endif
	void *block = malloc(PLUGIN_BYTES); /* PLUGIN_MALLOC_LINE */

	stash_slots[slot] = block;
	__asm__ volatile("" ::: "memory"); /* no tail call: keep the frame */
	return block != NULL;
}

__attribute__((noinline)) int RUN(void)
{
	int leaked = 0;

	for (int slot = 0; slot < PLUGIN_BLOCKS; slot++)
		leaked += STASH(slot);
	__asm__ volatile("" ::: "memory");
	return leaked;
}
