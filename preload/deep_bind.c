/*
 * preload/deep_bind.c - finds loaded modules whose allocator calls go
 * straight to the C library, past the shim, and points them at the shim.
 *
 * A library that dlopen() loaded with RTLD_DEEPBIND (PHP loads every
 * extension so) looks its symbols up in its own dependencies first, so its
 * malloc and free are the C library's, not the LD_PRELOAD shim's: blocks it
 * frees stay live in the trace, and other code later gets their addresses
 * again.  Any other module of the default namespace is bound to the shim,
 * so a GOT slot holding the C library's definition can only be such a
 * library's; its slots are rewritten (import_bind.h) to the shim's entry
 * point, which calls that very definition.  Slots of a library bound to
 * another allocator, of a dlmopen() namespace (its own C library) and not
 * yet bound (lazy binding) stay.  Runs at start and at each module rescan,
 * so calls made between a library's dlopen and the next rescan are not
 * seen; the diagnostic says so.  The slots are rewritten inside the
 * dl_iterate_phdr callback, under the loader's lock, so two threads never
 * make the same page writable and read-only again at once.
 *
 * Owns a table of the modules it has looked at (mapped memory, read and
 * written only in that callback, so under the loader's lock): a module's
 * relocations are read once and its allocator slots kept, and later passes
 * look again only at its slots not bound yet, so that N libraries loaded
 * one by one cost O(N) relocation reads, not O(N^2).  After an unload (the
 * loader's count of them moved) a pass checks every kept slot of the
 * modules whose name and program headers are still those it kept (another
 * module may have come where one left, with the same loader pointers) and
 * reads the others' relocations again; the modules that left drop out.
 * Never allocates.
 */
#define _GNU_SOURCE
#include <link.h>
#include <malloc.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "preload/deep_bind.h"
#include "preload/diag.h"
#include "preload/import_bind.h"
#include "preload/mem.h"
#include "preload/new_bind.h"
#include "preload/phdr.h"
#include "preload/real.h"
#include "preload/text.h"

#define DEEP_BIND_TEXT_BYTES 768
#define DEEP_BIND_NAMES_MAX 3
#define DEEP_BIND_SLOTS_MAX 8
#define DEEP_BIND_FIRST_CAP 128u
#define DEEP_BIND_ALWAYS UINT32_MAX

/* The shim's entry points under hidden names (interpose.c). */
#define DEEP_BIND_SELF(fn) extern __typeof(fn) deep_bind_self_##fn
DEEP_BIND_SELF(malloc);
DEEP_BIND_SELF(calloc);
DEEP_BIND_SELF(realloc);
DEEP_BIND_SELF(reallocarray);
DEEP_BIND_SELF(free);
DEEP_BIND_SELF(posix_memalign);
DEEP_BIND_SELF(aligned_alloc);
DEEP_BIND_SELF(memalign);
DEEP_BIND_SELF(valloc);
DEEP_BIND_SELF(pvalloc);

/* A module looked at: the loader's pointers that tell it from the others
 * while none is unloaded, a hash of its name and program headers checked
 * after one was, how many of its allocator slots were not bound at the
 * last pass (DEEP_BIND_ALWAYS: more than DEEP_BIND_SLOTS_MAX slots, all its
 * relocations are read at every pass) and where its slots lie in the
 * table's pool.  Small, for a pass that finds nothing to do to read
 * little. */
struct deep_bind_module {
	uintptr_t addr, phdr, name;  /* 0 phdr: an empty place */
	uint64_t hash;
	uint32_t npending, nslots, first;
};

/* An open-addressing table of modules by load address and headers, and
 * the pool of their slots (appended to). */
struct deep_bind_table {
	struct deep_bind_module *modules;
	uint32_t cap, count;         /* cap: a power of two, or 0 */
	struct import_slot *pool;
	uint32_t pool_cap, pool_count;
};

/* The modules looked at; during a pass after an unload, the table before
 * it, from which the modules still loaded move (dropped at the next pass);
 * the loader's count of unloads at the last pass. */
static struct deep_bind_table deep_bind_known, deep_bind_before;
static uint64_t deep_bind_subs;
/* Set while this thread's pass runs: a pass of a signal handler's
 * allocation inside it does nothing (the one under way sees every module). */
static __thread int deep_bind_running __attribute__((tls_model("initial-exec")));

/* One walk: the slots to rewrite and what was found. */
struct deep_bind_walk {
	struct import_rebinding rebindings[10];
	size_t count;
	unsigned modules, slots;
	int started, verify;
	char names[DEEP_BIND_TEXT_BYTES];
};

/* Whether info is the shim's own module. */
static int deep_bind_is_self(const struct dl_phdr_info *info)
{
	return phdr_load_holding(info, (uintptr_t)deep_bind_redirect, 1) != NULL;
}

/* FNV-1a of n bytes, from h on. */
static uint64_t deep_bind_hash(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

/* What tells info's module from another loaded where it was. */
static uint64_t deep_bind_identity(const struct dl_phdr_info *info)
{
	uint64_t h = 0xcbf29ce484222325ull;

	if (info->dlpi_name)
		h = deep_bind_hash(h, info->dlpi_name, strlen(info->dlpi_name));
	return deep_bind_hash(h, info->dlpi_phdr, info->dlpi_phnum * sizeof(*info->dlpi_phdr));
}

/* The place of the module (addr, phdr, name) in t (cap nonzero): its
 * entry, or the empty place where it would go. */
static struct deep_bind_module *deep_bind_place(const struct deep_bind_table *t, uintptr_t addr,
						uintptr_t phdr, uintptr_t name)
{
	uint64_t h = ((uint64_t)addr ^ ((uint64_t)phdr >> 3)) * 0x9e3779b97f4a7c15ull;

	for (uint32_t i = (uint32_t)(h >> 32) & (t->cap - 1);; i = (i + 1) & (t->cap - 1)) {
		struct deep_bind_module *m = &t->modules[i];

		if (!m->phdr || (m->addr == addr && m->phdr == phdr && m->name == name))
			return m;
	}
}

/* The place of info's module in t. */
static struct deep_bind_module *deep_bind_place_info(const struct deep_bind_table *t,
						     const struct dl_phdr_info *info)
{
	return deep_bind_place(t, info->dlpi_addr, (uintptr_t)info->dlpi_phdr,
			       (uintptr_t)info->dlpi_name);
}

/* Unmaps t's memory and empties it. */
static void deep_bind_drop(struct deep_bind_table *t)
{
	if (t->modules)
		preload_mem_unmap(t->modules, t->cap * sizeof(*t->modules));
	if (t->pool)
		preload_mem_unmap(t->pool, t->pool_cap * sizeof(*t->pool));
	*t = (struct deep_bind_table){ NULL, 0, 0, NULL, 0, 0 };
}

/* Makes room in t for one more module (its table at most half full, room
 * for DEEP_BIND_SLOTS_MAX slots in its pool); 0, or -1 when out of memory. */
static int deep_bind_grow(struct deep_bind_table *t)
{
	struct deep_bind_module *modules;
	struct import_slot *pool;
	uint32_t cap;

	if (t->pool_count + DEEP_BIND_SLOTS_MAX > t->pool_cap) {
		cap = t->pool_cap ? t->pool_cap * 2 : DEEP_BIND_FIRST_CAP;
		pool = preload_mem_map(cap * sizeof(*pool));
		if (!pool)
			return -1;
		if (t->pool) {
			memcpy(pool, t->pool, t->pool_count * sizeof(*pool));
			preload_mem_unmap(t->pool, t->pool_cap * sizeof(*pool));
		}
		t->pool = pool;
		t->pool_cap = cap;
	}
	if (t->cap && (t->count + 1) * 2 <= t->cap)
		return 0;
	cap = t->cap ? t->cap * 2 : 2 * DEEP_BIND_FIRST_CAP;
	modules = preload_mem_map(cap * sizeof(*modules));
	if (!modules)
		return -1;
	for (uint32_t i = 0; i < t->cap; i++) {
		const struct deep_bind_module *m = &t->modules[i];
		struct deep_bind_table bigger = { modules, cap, 0, NULL, 0, 0 };

		if (m->phdr)
			*deep_bind_place(&bigger, m->addr, m->phdr, m->name) = *m;
	}
	if (t->modules)
		preload_mem_unmap(t->modules, t->cap * sizeof(*t->modules));
	t->modules = modules;
	t->cap = cap;
	return 0;
}

/* Fills m, info's module's place, with what tells it, and t's pool with
 * its allocator slots (none for the shim itself). */
static void deep_bind_learn(const struct deep_bind_walk *w, const struct dl_phdr_info *info,
			    struct deep_bind_table *t, struct deep_bind_module *m)
{
	int n = deep_bind_is_self(info) ? 0
					: import_slots_find(info, w->rebindings, w->count,
							    &t->pool[t->pool_count],
							    DEEP_BIND_SLOTS_MAX);

	m->addr = info->dlpi_addr;
	m->phdr = (uintptr_t)info->dlpi_phdr;
	m->name = (uintptr_t)info->dlpi_name;
	m->hash = deep_bind_identity(info);
	m->first = t->pool_count;
	m->nslots = n < 0 ? 0 : (uint32_t)n;
	m->npending = m->nslots;
	if (m->nslots > DEEP_BIND_SLOTS_MAX)
		m->npending = DEEP_BIND_ALWAYS;
	else
		t->pool_count += m->nslots;
}

/* Rewrites m's slots bound to the C library: all of them, or only those
 * not bound at the last pass; for a module of too many slots, reads all its
 * relocations.  Returns how many it rewrote, or a negative errno. */
static int deep_bind_rebind(const struct deep_bind_walk *w, const struct dl_phdr_info *info,
			    struct deep_bind_module *m, int all)
{
	struct import_slot pending[DEEP_BIND_SLOTS_MAX];
	struct import_slot *s;
	uint32_t n = 0;
	int slots;

	if (m->npending == DEEP_BIND_ALWAYS)
		return import_rebind_loaded(info, w->rebindings, w->count);
	if (!all && !m->npending)
		return 0;
	s = &deep_bind_known.pool[m->first];
	for (uint32_t i = 0; i < m->nslots; i++)
		if (all || s[i].pending)
			pending[n++] = s[i];
	slots = import_slots_rebind(info, w->rebindings, pending, n);
	m->npending = 0;
	for (uint32_t i = 0, j = 0; i < m->nslots; i++) {
		if (all || s[i].pending)
			s[i].pending = pending[j++].pending;
		m->npending += s[i].pending;
	}
	return slots;
}

/* Starts a pass at its first module (under the loader's lock): unmaps the
 * table the last pass after an unload emptied, and when the loader
 * unloaded a module since the last pass, moves the table aside, for this
 * pass to take from it what is still loaded. */
static void deep_bind_start(struct deep_bind_walk *w, const struct dl_phdr_info *info, size_t size)
{
	uint64_t subs = size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof(info->dlpi_subs)
				? info->dlpi_subs
				: deep_bind_subs + 1;

	w->started = 1;
	deep_bind_drop(&deep_bind_before);
	if (subs != deep_bind_subs && deep_bind_known.count) {
		deep_bind_before = deep_bind_known;
		deep_bind_known = (struct deep_bind_table){ NULL, 0, 0, NULL, 0, 0 };
		w->verify = 1;
	}
	deep_bind_subs = subs;
}

/* The table's entry of info's module: found (*all clear), taken from the
 * table before the last unload when its identity is unchanged, or read
 * now (*all set: check every slot); NULL when out of memory. */
static struct deep_bind_module *deep_bind_find(const struct deep_bind_walk *w,
					       const struct dl_phdr_info *info, int *all)
{
	struct deep_bind_module *m, *old = NULL;
	struct deep_bind_table *t = &deep_bind_known;

	*all = 1;
	if (t->cap) {
		m = deep_bind_place_info(t, info);
		if (m->phdr) {
			*all = 0;
			return m;
		}
	}
	if (deep_bind_grow(t) < 0)
		return NULL;
	m = deep_bind_place_info(t, info);
	if (w->verify)
		old = deep_bind_place_info(&deep_bind_before, info);
	if (old && old->phdr && old->hash == deep_bind_identity(info)) {
		*m = *old;
		if (m->npending != DEEP_BIND_ALWAYS) {
			m->first = t->pool_count;
			memcpy(&t->pool[m->first], &deep_bind_before.pool[old->first],
			       m->nslots * sizeof(*t->pool));
			t->pool_count += m->nslots;
		}
	} else {
		deep_bind_learn(w, info, t, m);
	}
	t->count++;
	return m;
}

/* dl_iterate_phdr callback: rewrites info's module's slots bound to the C
 * library, and names the module in the walk's text when it had any. */
static int deep_bind_one(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct deep_bind_walk *w = arg;
	struct deep_bind_module *m;
	int slots, all;

	if (!w->started)
		deep_bind_start(w, info, size);
	/* its own calls of malloc and free go to it (new_bind.c) */
	if (new_bind_is_allocator(info))
		return 0;
	m = deep_bind_find(w, info, &all);
	if (m)
		slots = deep_bind_rebind(w, info, m, all);
	else if (deep_bind_is_self(info))
		slots = 0;
	else
		slots = import_rebind_loaded(info, w->rebindings, w->count);
	if (slots <= 0)
		return 0;
	if (w->modules < DEEP_BIND_NAMES_MAX) {
		preload_text_append(w->names, sizeof(w->names), w->modules ? ", " : "");
		preload_text_append(w->names, sizeof(w->names),
				    info->dlpi_name && info->dlpi_name[0] ? info->dlpi_name
									  : "the program");
	}
	w->modules++;
	w->slots += (unsigned)slots;
	return 0;
}

/* Adds the rebinding of name when the C library's definition is known. */
static void deep_bind_add(struct deep_bind_walk *w, const char *name, const void *from, void *to)
{
	if (from)
		w->rebindings[w->count++] = (struct import_rebinding){ name, from, to };
}

/* Appends the decimal n to text. */
static void deep_bind_put_count(char *text, size_t cap, unsigned n)
{
	char digits[16], *p = digits + sizeof(digits) - 1;

	*p = '\0';
	do
		*--p = (char)('0' + n % 10);
	while (n /= 10);
	preload_text_append(text, cap, p);
}

void deep_bind_redirect(void)
{
	struct deep_bind_walk w = { .count = 0 };
	char text[DEEP_BIND_TEXT_BYTES] = "";

	/* With a foreign malloc every module, the C library too, is bound to
	 * it by plain lookup, and the shim's free and realloc are that
	 * allocator's: nothing passes the shim, and a slot rewritten to it
	 * could hand a C library block to the foreign free. */
	if (__atomic_load_n(&real.foreign, __ATOMIC_ACQUIRE))
		return;
	deep_bind_add(&w, "malloc", (const void *)real_get(malloc), (void *)deep_bind_self_malloc);
	deep_bind_add(&w, "calloc", (const void *)real_get(calloc), (void *)deep_bind_self_calloc);
	deep_bind_add(&w, "realloc", (const void *)real_get(realloc),
		      (void *)deep_bind_self_realloc);
	deep_bind_add(&w, "reallocarray", (const void *)real_get(reallocarray),
		      (void *)deep_bind_self_reallocarray);
	deep_bind_add(&w, "free", (const void *)real_get(free), (void *)deep_bind_self_free);
	deep_bind_add(&w, "posix_memalign", (const void *)real_get(posix_memalign),
		      (void *)deep_bind_self_posix_memalign);
	deep_bind_add(&w, "aligned_alloc", (const void *)real_get(aligned_alloc),
		      (void *)deep_bind_self_aligned_alloc);
	deep_bind_add(&w, "memalign", (const void *)real_get(memalign),
		      (void *)deep_bind_self_memalign);
	deep_bind_add(&w, "valloc", (const void *)real_get(valloc), (void *)deep_bind_self_valloc);
	deep_bind_add(&w, "pvalloc", (const void *)real_get(pvalloc),
		      (void *)deep_bind_self_pvalloc);
	if (!w.count || deep_bind_running)
		return;
	deep_bind_running = 1;
	dl_iterate_phdr(deep_bind_one, &w);
	deep_bind_running = 0;
	if (!w.modules)
		return;
	preload_text_append(text, sizeof(text),
			    "a library loaded with RTLD_DEEPBIND calls the C library's malloc and "
			    "free past mprof: ");
	preload_text_append(text, sizeof(text), w.names);
	if (w.modules > DEEP_BIND_NAMES_MAX) {
		preload_text_append(text, sizeof(text), " and ");
		deep_bind_put_count(text, sizeof(text), w.modules - DEEP_BIND_NAMES_MAX);
		preload_text_append(text, sizeof(text), " more");
	}
	preload_text_append(text, sizeof(text),
			    "; mprof records those calls from here on, not the ones made before "
			    "(their blocks may show as leaks, unmatched frees or addresses reused "
			    "while live)");
	diag_report(TRACE_DIAG_INFO, text);
}
