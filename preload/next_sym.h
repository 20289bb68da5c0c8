/*
 * preload/next_sym.h - the C library's definitions of the functions the
 * recorder wraps (dlsym(RTLD_NEXT)), looked up once into a table of slots.
 * dlsym may allocate, so each wrapping file looks its names up at the
 * recorder's start (a first lookup in a signal handler or a vfork child
 * would allocate there).
 */
#ifndef MPROF_PRELOAD_NEXT_SYM_H
#define MPROF_PRELOAD_NEXT_SYM_H

#include <dlfcn.h>

/* The next definition of names[which], cached in slots[which]; NULL when
 * there is none. */
static inline void *next_sym(void *volatile *slots, const char *const *names, int which)
{
	void *fn = __atomic_load_n(&slots[which], __ATOMIC_ACQUIRE);

	if (!fn) {
		fn = dlsym(RTLD_NEXT, names[which]);
		__atomic_store_n(&slots[which], fn, __ATOMIC_RELEASE);
	}
	return fn;
}

/* Looks up the count names into slots. */
static inline void next_sym_resolve(void *volatile *slots, const char *const *names, int count)
{
	for (int i = 0; i < count; i++)
		next_sym(slots, names, i);
}

#endif
