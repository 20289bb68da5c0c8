/*
 * preload/slot_table.c - the GOT slots a rebinding pass looks at, kept by
 * module between passes (see preload/slot_table.h).
 *
 * A pass over the loaded modules (deep_bind.c's, new_bind.c's) runs at
 * every module rescan.  Reading every module's relocations each time made
 * N libraries loaded one by one cost O(N^2) relocation reads; here a
 * module's relocations are read at its first pass and its slots of the
 * rebindings' names kept, and later passes look again only at those not
 * bound yet (lazy binding, or a dlopen under way): a slot once bound, to
 * the rebinding's from (rewritten then) or to anything else, is never
 * bound again by the loader.  A module of more than SLOT_TABLE_SLOTS_MAX
 * such slots has all its relocations read at every pass.
 *
 * Owns an open-addressing table of modules by the loader's pointers (load
 * address, program headers, name), which tell a module from the others
 * while none is unloaded, and the pool of their slots (appended to).  After
 * an unload (the loader's count of them moved) a pass checks every kept
 * slot of the modules whose name and program headers are still those it
 * kept (another module may have come where one left, with the same loader
 * pointers) and reads the others' relocations again; the modules that
 * left drop out.  Read and written only inside dl_iterate_phdr's callback,
 * so under the loader's lock.  Never allocates: mapped memory.
 */
#define _GNU_SOURCE
#include <link.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "preload/import_bind.h"
#include "preload/mem.h"
#include "preload/slot_table.h"

#define SLOT_TABLE_SLOTS_MAX 32
#define SLOT_TABLE_FIRST_CAP 128u
#define SLOT_TABLE_ALWAYS UINT32_MAX

/* A module looked at: what tells it from the others (a hash of its name
 * and program headers checked after an unload), how many of its slots
 * were not bound at the last pass (SLOT_TABLE_ALWAYS: too many slots, all
 * its relocations are read at every pass), where its slots lie in the
 * pool, and whether its lazy slots are rewritten.  Small, for a pass that
 * finds nothing to do to read little. */
struct slot_table_module {
	uintptr_t addr, phdr, name;  /* 0 phdr: an empty place */
	uint64_t hash;
	uint32_t npending, nslots, first, lazy;
};

/* FNV-1a of n bytes, from h on. */
static uint64_t slot_table_hash(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

/* What tells info's module from another loaded where it was. */
static uint64_t slot_table_identity(const struct dl_phdr_info *info)
{
	uint64_t h = 0xcbf29ce484222325ull;

	if (info->dlpi_name)
		h = slot_table_hash(h, info->dlpi_name, strlen(info->dlpi_name));
	return slot_table_hash(h, info->dlpi_phdr, info->dlpi_phnum * sizeof(*info->dlpi_phdr));
}

/* The place of the module (addr, phdr, name) in p (cap nonzero): its
 * entry, or the empty place where it would go. */
static struct slot_table_module *slot_table_place(const struct slot_table_part *p, uintptr_t addr,
						  uintptr_t phdr, uintptr_t name)
{
	uint64_t h = ((uint64_t)addr ^ ((uint64_t)phdr >> 3)) * 0x9e3779b97f4a7c15ull;

	for (uint32_t i = (uint32_t)(h >> 32) & (p->cap - 1);; i = (i + 1) & (p->cap - 1)) {
		struct slot_table_module *m = &p->modules[i];

		if (!m->phdr || (m->addr == addr && m->phdr == phdr && m->name == name))
			return m;
	}
}

/* The place of info's module in p. */
static struct slot_table_module *slot_table_place_info(const struct slot_table_part *p,
						       const struct dl_phdr_info *info)
{
	return slot_table_place(p, info->dlpi_addr, (uintptr_t)info->dlpi_phdr,
				(uintptr_t)info->dlpi_name);
}

/* Unmaps p's memory and empties it. */
static void slot_table_drop(struct slot_table_part *p)
{
	if (p->modules)
		preload_mem_unmap(p->modules, p->cap * sizeof(*p->modules));
	if (p->pool)
		preload_mem_unmap(p->pool, p->pool_cap * sizeof(*p->pool));
	*p = (struct slot_table_part){ NULL, 0, 0, NULL, 0, 0 };
}

/* Makes room in p for one more module (its table at most half full, room
 * for SLOT_TABLE_SLOTS_MAX slots in its pool); 0, or -1 when out of
 * memory. */
static int slot_table_grow(struct slot_table_part *p)
{
	struct slot_table_module *modules;
	struct import_slot *pool;
	uint32_t cap;

	if (p->pool_count + SLOT_TABLE_SLOTS_MAX > p->pool_cap) {
		cap = p->pool_cap ? p->pool_cap * 2 : SLOT_TABLE_FIRST_CAP;
		pool = preload_mem_map(cap * sizeof(*pool));
		if (!pool)
			return -1;
		if (p->pool) {
			memcpy(pool, p->pool, p->pool_count * sizeof(*pool));
			preload_mem_unmap(p->pool, p->pool_cap * sizeof(*pool));
		}
		p->pool = pool;
		p->pool_cap = cap;
	}
	if (p->cap && (p->count + 1) * 2 <= p->cap)
		return 0;
	cap = p->cap ? p->cap * 2 : 2 * SLOT_TABLE_FIRST_CAP;
	modules = preload_mem_map(cap * sizeof(*modules));
	if (!modules)
		return -1;
	for (uint32_t i = 0; i < p->cap; i++) {
		const struct slot_table_module *m = &p->modules[i];
		struct slot_table_part bigger = { modules, cap, 0, NULL, 0, 0 };

		if (m->phdr)
			*slot_table_place(&bigger, m->addr, m->phdr, m->name) = *m;
	}
	if (p->modules)
		preload_mem_unmap(p->modules, p->cap * sizeof(*p->modules));
	p->modules = modules;
	p->cap = cap;
	return 0;
}

/* Fills m, info's module's place in t, with what tells it, and t's pool
 * with its slots of the rebindings' names. */
static void slot_table_learn(struct slot_table *t, const struct dl_phdr_info *info,
			     const struct import_rebinding *rebindings, size_t count,
			     struct slot_table_module *m)
{
	struct slot_table_part *p = &t->known;
	int n = import_slots_find(info, rebindings, count, &p->pool[p->pool_count],
				  SLOT_TABLE_SLOTS_MAX);

	m->addr = info->dlpi_addr;
	m->phdr = (uintptr_t)info->dlpi_phdr;
	m->name = (uintptr_t)info->dlpi_name;
	m->hash = slot_table_identity(info);
	m->first = p->pool_count;
	m->nslots = n < 0 ? 0 : (uint32_t)n;
	m->npending = m->nslots;
	m->lazy = t->lazy_wanted && m->nslots && t->lazy_wanted(info);
	if (m->nslots > SLOT_TABLE_SLOTS_MAX)
		m->npending = SLOT_TABLE_ALWAYS;
	else
		p->pool_count += m->nslots;
}

/* Starts a pass at its first module: unmaps the table the last pass after
 * an unload emptied, and when the loader unloaded a module since the last
 * pass, moves the table aside, for this pass to take from it what is
 * still loaded. */
static void slot_table_start(struct slot_table *t, const struct dl_phdr_info *info, size_t size)
{
	uint64_t subs = size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof(info->dlpi_subs)
				? info->dlpi_subs
				: t->subs + 1;

	t->started = 1;
	t->verify = 0;
	slot_table_drop(&t->before);
	if (subs != t->subs && t->known.count) {
		t->before = t->known;
		t->known = (struct slot_table_part){ NULL, 0, 0, NULL, 0, 0 };
		t->verify = 1;
	}
	t->subs = subs;
}

/* The entry of info's module: found (*all clear), taken from the table
 * before the last unload when its identity is unchanged, or read now
 * (*all set: check every slot); NULL when out of memory. */
static struct slot_table_module *slot_table_find(struct slot_table *t,
						 const struct dl_phdr_info *info,
						 const struct import_rebinding *rebindings,
						 size_t count, int *all)
{
	struct slot_table_part *p = &t->known;
	struct slot_table_module *m, *old = NULL;

	*all = 1;
	if (p->cap) {
		m = slot_table_place_info(p, info);
		if (m->phdr) {
			*all = 0;
			return m;
		}
	}
	if (slot_table_grow(p) < 0)
		return NULL;
	m = slot_table_place_info(p, info);
	if (t->verify && t->before.cap)
		old = slot_table_place_info(&t->before, info);
	if (old && old->phdr && old->hash == slot_table_identity(info)) {
		*m = *old;
		if (m->npending != SLOT_TABLE_ALWAYS) {
			m->first = p->pool_count;
			memcpy(&p->pool[m->first], &t->before.pool[old->first],
			       m->nslots * sizeof(*p->pool));
			p->pool_count += m->nslots;
		}
	} else {
		slot_table_learn(t, info, rebindings, count, m);
	}
	p->count++;
	return m;
}

/* Every relocation of info's module read again: its slots bound to from
 * rewritten, and its lazy ones when lazy_wanted (counted in *lazy). */
static int slot_table_rebind_all(const struct dl_phdr_info *info,
				 const struct import_rebinding *rebindings, size_t count,
				 int lazy_wanted, unsigned *lazy)
{
	int bound = import_rebind_loaded(info, rebindings, count), late;

	if (bound < 0 || !lazy_wanted)
		return bound;
	late = import_rebind_loaded_lazy(info, rebindings, count);
	if (late < 0)
		return late;
	if (lazy)
		*lazy += (unsigned)late;
	return bound;
}

void slot_table_pass_begin(struct slot_table *t)
{
	t->started = 0;
}

int slot_table_rebind(struct slot_table *t, const struct dl_phdr_info *info, size_t size,
		      const struct import_rebinding *rebindings, size_t count, unsigned *lazy)
{
	struct import_slot pending[SLOT_TABLE_SLOTS_MAX];
	struct slot_table_module *m;
	struct import_slot *s;
	unsigned rewritten_lazy = 0;
	uint32_t n = 0;
	int slots, all;

	if (!t->started)
		slot_table_start(t, info, size);
	m = slot_table_find(t, info, rebindings, count, &all);
	if (!m)
		return slot_table_rebind_all(info, rebindings, count,
					     t->lazy_wanted && t->lazy_wanted(info), lazy);
	if (m->npending == SLOT_TABLE_ALWAYS)
		return slot_table_rebind_all(info, rebindings, count, (int)m->lazy, lazy);
	if (!all && !m->npending)
		return 0;
	s = &t->known.pool[m->first];
	for (uint32_t i = 0; i < m->nslots; i++)
		if (all || s[i].pending)
			pending[n++] = s[i];
	slots = import_slots_rebind(info, rebindings, pending, n,
				    m->lazy ? &rewritten_lazy : NULL);
	m->npending = 0;
	for (uint32_t i = 0, j = 0; i < m->nslots; i++) {
		if (all || s[i].pending)
			s[i].pending = pending[j++].pending;
		m->npending += s[i].pending;
	}
	if (lazy)
		*lazy += rewritten_lazy;
	return slots;
}
