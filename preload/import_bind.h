/*
 * preload/import_bind.h - points one loaded module's calls of named
 * functions at other functions, leaving every other module's calls alone
 * (import_bind.c says how).
 */
#ifndef MPROF_PRELOAD_IMPORT_BIND_H
#define MPROF_PRELOAD_IMPORT_BIND_H

#include <stddef.h>
#include <stdint.h>

struct import_binding {
	const char *name; /* the function the module imports */
	void *fn;         /* where the module's calls of it go from now on */
	int slots;        /* out: how many of the module's slots for it were rewritten */
};

/*
 * Rewrites the GOT slots of the module handle (from dlopen) for each
 * binding's name.  Returns 0, or a negative errno: -ENOTSUP on a machine
 * whose relocations it does not know, -ENOENT when the module's dynamic
 * tables cannot be found, mprotect's error when a read-only slot could be
 * neither written through /proc/self/mem nor made writable (slots already
 * rewritten stay so).  Never allocates.
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

/*
 * import_rebind_loaded, rewriting also the slots of a rebinding's name that
 * are relocated and not bound yet (they hold lazy binding's PLT entry in
 * the module), which the loader would later bind to the definition its
 * lookup finds; a slot not relocated yet (a dlopen under way) stays.  For
 * a module whose lookup finds the rebindings' from.  Never allocates.
 */
int import_rebind_loaded_lazy(const struct dl_phdr_info *info,
			      const struct import_rebinding *rebindings, size_t count);

/* One GOT slot of a module for a rebinding's name (import_slots_find). */
struct import_slot {
	uintptr_t addr;    /* the slot's address */
	uint32_t which;    /* the index of its rebinding */
	uint32_t pending;  /* set by import_slots_rebind: not bound to a definition yet */
};

/*
 * Lists the GOT slots of the loaded module info (from dl_iterate_phdr, which
 * may be running) whose symbol is a rebinding's name, the first cap of them
 * into slots.  Returns how many the module has (more than cap: the rest are
 * not listed), or a negative errno: -ENOTSUP on a machine whose relocations
 * it does not know, -ENOENT when the module has no dynamic tables.  Never
 * allocates.
 */
int import_slots_find(const struct dl_phdr_info *info, const struct import_rebinding *rebindings,
		      size_t count, struct import_slot *slots, size_t cap);

struct link_map;

/*
 * How many GOT slots the loaded module map has for function name (how many
 * ways it has to call that import: a PLT's JUMP_SLOT, a GLOB_DAT), or a
 * negative errno as import_slots_find says.  Reads the module's dynamic
 * tables only.  Never allocates.
 */
int import_module_slots(const struct link_map *map, const char *name);

/*
 * import_module_slots, counting only the slots whose symbol the module does
 * not define itself (a true import: the C++ library's calls of its own
 * operator new are not).  Never allocates.
 */
int import_module_imports(const struct link_map *map, const char *name);

/*
 * Rewrites those of the n slots (of the loaded module info, as listed by
 * import_slots_find) that hold their rebinding's from, and, when lazy is
 * not NULL, those relocated and not bound yet (lazy binding's PLT entry in
 * the module, as import_rebind_loaded_lazy does; counted in *lazy), and
 * sets each slot's pending: whether it still holds a value of the module's
 * own (lazy binding's PLT entry, or its link-time value while the loader
 * has not relocated it yet) and was not rewritten, so that its definition
 * may come later.  Returns how many slots holding from were rewritten, or
 * a negative errno as import_bind_module says (slots already rewritten
 * stay so).  Never allocates.
 */
int import_slots_rebind(const struct dl_phdr_info *info, const struct import_rebinding *rebindings,
			struct import_slot *slots, size_t n, unsigned *lazy);

#endif
