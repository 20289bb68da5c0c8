/*
 * preload/slot_table.h - the GOT slots a rebinding pass over the loaded
 * modules looks at, kept by module between passes, so that a pass reads
 * only the relocations of the modules it has not seen (slot_table.c says
 * how).  preload/deep_bind.c and preload/new_bind.c each own one.
 */
#ifndef MPROF_PRELOAD_SLOT_TABLE_H
#define MPROF_PRELOAD_SLOT_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "preload/import_bind.h"

struct dl_phdr_info;
struct slot_table_module;
struct slot_table_part {
	struct slot_table_module *modules;
	uint32_t cap, count;         /* cap: a power of two, or 0 */
	struct import_slot *pool;
	uint32_t pool_cap, pool_count;
};

/*
 * One pass's table: a static one, zeroed but for lazy_wanted.  lazy_wanted
 * (NULL: never) says of a module met for the first time whether its slots
 * relocated and not bound yet (lazy binding) are to be rewritten too
 * (import_rebind_loaded_lazy); asked once a module.
 */
struct slot_table {
	int (*lazy_wanted)(const struct dl_phdr_info *info);
	struct slot_table_part known, before; /* the modules; the table before an unload */
	uint64_t subs;                        /* the loader's count of unloads at the last pass */
	int started, verify;                  /* of the pass under way */
};

/* Before a pass (dl_iterate_phdr) whose callback calls slot_table_rebind. */
void slot_table_pass_begin(struct slot_table *t);

/*
 * Rewrites the slots of info's module (size: dl_iterate_phdr's) bound to a
 * rebinding's from, and, when t's lazy_wanted said so, those relocated and
 * not bound yet (their count added to *lazy when lazy is not NULL): at the
 * module's first pass (and after an unload, when it may be another module)
 * all of them, read from its relocations; later, only those not bound at
 * the last pass.  Returns how many slots bound to from it rewrote, or a
 * negative errno as import_slots_rebind says.  The rebindings must be
 * those of every pass of t.  Called inside dl_iterate_phdr's callback (its
 * lock keeps two passes of t apart); never allocates (mapped memory; when
 * none can be mapped, the module's relocations are read again).
 */
int slot_table_rebind(struct slot_table *t, const struct dl_phdr_info *info, size_t size,
		      const struct import_rebinding *rebindings, size_t count, unsigned *lazy);

#endif
