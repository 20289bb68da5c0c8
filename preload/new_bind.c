/*
 * preload/new_bind.c - points the program's calls of C++ operator new and
 * delete at the shim's hidden wrappers (preload/new_wrap.c) when the
 * allocator behind the shim defines them and serves them from its own heap
 * (init.c finds that): without it, a jemalloc, tcmalloc or mimalloc user's
 * C++ allocations never reach malloc and free, and are not recorded.
 *
 * Exporting the 20 forms from the shim would cost every C++ program a
 * wrapper on each new and delete; rewriting GOT slots (import_bind.h)
 * costs nothing where there is no such allocator.  Every module's slots
 * for a form the allocator defines are rewritten, the C++ library's too
 * (its own calls of new, in std::string and kin, are the program's), but
 * the allocator's and the shim's: those bound to the allocator's
 * definition and, in the modules of the program's namespace, those not
 * bound yet (lazy binding), which the loader would later bind to it.
 * The allocator's own calls of malloc and free (Debian's jemalloc's delete
 * calls free through its PLT, which finds the shim's) are pointed at its
 * own definitions (real.h's table) at each pass, or a delete would be
 * recorded twice, once by the wrapper and once by the shim's free (the
 * second an unmatched free); deep_bind.c leaves that module alone.
 * Runs at start, at each module rescan (as deep_bind.c does) and at exit,
 * under the loader's lock (inside dl_iterate_phdr).  A library loaded by
 * dlopen calls the allocator unrecorded until the next rescan (the first
 * recorded call whose stack passes through it, or a dlclose); a pass after
 * the start that finds a slot already bound to the allocator (a lazy slot
 * called, or one bound at load) says that calls may have been missed, in a
 * TRACE_DIAG_FOREIGN_NEW diagnostic.  Keeps the slots it looked at by
 * module (preload/slot_table.h), as deep_bind.c does: a pass reads the
 * relocations of the modules it has not seen only (and the allocator's
 * own, one module).  Never allocates past new_bind_start.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <malloc.h>

#include "preload/diag.h"
#include "preload/import_bind.h"
#include "preload/new_bind.h"
#include "preload/new_wrap.h"
#include "preload/phdr.h"
#include "preload/real.h"
#include "preload/slot_table.h"
#include "preload/text.h"

#define NEW_BIND_TEXT_BYTES 1024

/* The rewrites to make (the forms the allocator defines), and one of its
 * definitions, which tells its module; count 0 until new_bind_start. */
static struct import_rebinding new_bind_rebindings[NEW_WRAP_FORMS];
static size_t new_bind_count;
static uintptr_t new_bind_allocator_probe;
/* Set while this thread's pass runs (a signal handler's allocation inside
 * it starts no second pass). */
static __thread int new_bind_running __attribute__((tls_model("initial-exec")));

/* The shim's entry points under hidden names (interpose.c). */
#define NEW_BIND_SELF(fn) extern __typeof(fn) deep_bind_self_##fn
NEW_BIND_SELF(malloc);
NEW_BIND_SELF(calloc);
NEW_BIND_SELF(realloc);
NEW_BIND_SELF(reallocarray);
NEW_BIND_SELF(free);
NEW_BIND_SELF(posix_memalign);
NEW_BIND_SELF(aligned_alloc);
NEW_BIND_SELF(memalign);
NEW_BIND_SELF(valloc);
NEW_BIND_SELF(pvalloc);

/* The allocator's own slots bound to the shim's entry points: pointed at
 * the real ones (its own, or the C library's where it lacks one). */
static struct import_rebinding new_bind_own[10];
static size_t new_bind_own_count;

/* Whether the first pass (at start) ran. */
static int new_bind_started;

static int new_bind_in_default_namespace(const struct dl_phdr_info *info);

/* The slots looked at, by module: the lazy ones of the program's namespace
 * rewritten too. */
static struct slot_table new_bind_slots = { .lazy_wanted = new_bind_in_default_namespace };

/* One pass: what it found, whether a slot could not be rewritten, and
 * the modules (after the start) found bound to the allocator already. */
struct new_bind_walk {
	unsigned modules, late;
	int failed;
	char names[NEW_BIND_TEXT_BYTES / 2];
};

/* Whether info's module is one of the program's namespace (the link maps
 * of _r_debug): a lookup there finds the allocator, so its slots not bound
 * yet are rewritten; a dlmopen() namespace has its own C++ library. */
static int new_bind_in_default_namespace(const struct dl_phdr_info *info)
{
	for (const struct link_map *m = _r_debug.r_map; m; m = m->l_next)
		if (m->l_addr == info->dlpi_addr)
			return 1;
	return 0;
}

int new_bind_is_allocator(const struct dl_phdr_info *info)
{
	uintptr_t probe = __atomic_load_n(&new_bind_allocator_probe, __ATOMIC_ACQUIRE);

	return probe && phdr_load_holding(info, probe, 1);
}

/* Adds the rewrite of the allocator's slots of name bound to the shim's
 * self to real (when known). */
static void new_bind_own_add(const char *name, void *self, void *real_fn)
{
	if (real_fn)
		new_bind_own[new_bind_own_count++] = (struct import_rebinding){ name, self, real_fn };
}

/* dl_iterate_phdr callback: rewrites info's module's slots. */
static int new_bind_one(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct new_bind_walk *w = arg;
	unsigned lazy = 0;
	int slots;

	if (phdr_load_holding(info, (uintptr_t)new_bind_redirect, 1))
		return 0;
	if (new_bind_is_allocator(info)) {
		if (import_rebind_loaded_lazy(info, new_bind_own, new_bind_own_count) < 0)
			w->failed = 1;
		return 0;
	}
	slots = slot_table_rebind(&new_bind_slots, info, size, new_bind_rebindings, new_bind_count,
				  &lazy);
	if (slots > 0 && new_bind_started) {
		if (w->late < 3) {
			preload_text_append(w->names, sizeof(w->names), w->late ? ", " : "");
			preload_text_append(w->names, sizeof(w->names),
					    info->dlpi_name && info->dlpi_name[0] ? info->dlpi_name
										  : "the program");
		}
		w->late++;
	}
	if (slots >= 0)
		slots += (int)lazy;
	if (slots < 0 && slots != -ENOENT)
		w->failed = 1;
	if (slots > 0)
		w->modules++;
	return 0;
}

/* Says which modules w found bound to the allocator after the start. */
static void new_bind_report_late(const struct new_bind_walk *w)
{
	char text[NEW_BIND_TEXT_BYTES] = "";

	preload_text_append(text, sizeof(text), w->names);
	preload_text_append(text, sizeof(text), w->late > 3 ? " and more modules" : "");
	preload_text_append(text, sizeof(text),
			    ", loaded after the start, were bound to the C++ operator new and "
			    "delete of the allocator behind mprof's malloc before mprof pointed "
			    "them at its wrappers (at its next module scan): the calls they made "
			    "in between, if any, are not recorded");
	diag_report(TRACE_DIAG_FOREIGN_NEW, text);
}

/* One pass over the loaded modules; -1 when a slot could not be
 * rewritten, else how many modules had slots rewritten. */
static int new_bind_pass(void)
{
	struct new_bind_walk w = { .modules = 0 };

	if (new_bind_running)
		return 0;
	new_bind_running = 1;
	slot_table_pass_begin(&new_bind_slots);
	dl_iterate_phdr(new_bind_one, &w);
	new_bind_started = 1;
	new_bind_running = 0;
	if (w.late)
		new_bind_report_late(&w);
	return w.failed ? -1 : (int)w.modules;
}

int new_bind_start(struct link_map *allocator)
{
	size_t count = 0;
	int news = 0, deletes = 0;

	for (int form = 0; form < NEW_WRAP_FORMS; form++) {
		struct link_map *map = NULL;
		void *def = real_foreign_definition(new_wrap_names[form], &map);

		if (!def || map != allocator)
			continue;
		new_wrap_foreign[form] = def;
		new_bind_rebindings[count++] = (struct import_rebinding){
			new_wrap_names[form], def, new_wrap_entry((enum new_wrap_form)form)
		};
		if (form < NEW_WRAP_DL)
			news++;
		else
			deletes++;
	}
	/* its new without its delete (or the other way) would record blocks
	 * whose frees are not seen */
	if (!news || !deletes)
		return -1;
	__atomic_store_n(&new_bind_allocator_probe, (uintptr_t)new_bind_rebindings[0].from,
			 __ATOMIC_RELEASE);
	new_bind_own_add("malloc", (void *)deep_bind_self_malloc, (void *)real.malloc);
	new_bind_own_add("calloc", (void *)deep_bind_self_calloc, (void *)real.calloc);
	new_bind_own_add("realloc", (void *)deep_bind_self_realloc, (void *)real.realloc);
	new_bind_own_add("reallocarray", (void *)deep_bind_self_reallocarray,
			 (void *)real.reallocarray);
	new_bind_own_add("free", (void *)deep_bind_self_free, (void *)real.free);
	new_bind_own_add("posix_memalign", (void *)deep_bind_self_posix_memalign,
			 (void *)real.posix_memalign);
	new_bind_own_add("aligned_alloc", (void *)deep_bind_self_aligned_alloc,
			 (void *)real.aligned_alloc);
	new_bind_own_add("memalign", (void *)deep_bind_self_memalign, (void *)real.memalign);
	new_bind_own_add("valloc", (void *)deep_bind_self_valloc, (void *)real.valloc);
	new_bind_own_add("pvalloc", (void *)deep_bind_self_pvalloc, (void *)real.pvalloc);
	__atomic_store_n(&new_bind_count, count, __ATOMIC_RELEASE);
	return new_bind_pass();
}

void new_bind_redirect(void)
{
	if (__atomic_load_n(&new_bind_count, __ATOMIC_ACQUIRE))
		new_bind_pass();
}
