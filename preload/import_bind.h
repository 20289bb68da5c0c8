/*
 * preload/import_bind.h - points one loaded module's calls of named
 * functions at other functions, leaving every other module's calls alone
 * (import_bind.c says how).
 */
#ifndef MPROF_PRELOAD_IMPORT_BIND_H
#define MPROF_PRELOAD_IMPORT_BIND_H

#include <stddef.h>

struct import_binding {
	const char *name; /* the function the module imports */
	void *fn;         /* where the module's calls of it go from now on */
	int slots;        /* out: how many of the module's slots for it were rewritten */
};

/*
 * Rewrites the GOT slots of the module handle (from dlopen) for each
 * binding's name.  Returns 0, or a negative errno: -ENOTSUP on a machine
 * whose relocations it does not know, -ENOENT when the module's dynamic
 * tables cannot be found, mprotect's error when a read-only slot could not
 * be made writable (slots already rewritten stay so).  Never allocates.
 */
int import_bind_module(void *handle, struct import_binding *bindings, size_t count);

struct dl_phdr_info;

/* One slot rewrite of import_rebind_loaded: a slot of name holding from is
 * made to hold to. */
struct import_rebinding {
	const char *name; /* the function the module imports */
	const void *from; /* the definition its slots are bound to now */
	void *to;         /* where its calls go from now on */
};

/*
 * Rewrites the GOT slots of the loaded module info (from dl_iterate_phdr,
 * which may be running) that are bound to a rebinding's from: slots of
 * other names, other values or not bound yet (lazy binding) stay.  Returns
 * how many slots were rewritten, or a negative errno: -ENOTSUP on a machine
 * whose relocations it does not know, -ENOENT when the module has no
 * dynamic tables, mprotect's error (slots already rewritten stay so).
 * Never allocates.
 */
int import_rebind_loaded(const struct dl_phdr_info *info, const struct import_rebinding *rebindings,
			 size_t count);

#endif
