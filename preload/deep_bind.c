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
 * Keeps the slots it looked at by module (preload/slot_table.h): a
 * module's relocations are read at its first pass, and later passes look
 * again only at its slots not bound yet, so that N libraries loaded one
 * by one cost O(N) relocation reads, not O(N^2).  Never allocates.
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
#include "preload/new_bind.h"
#include "preload/phdr.h"
#include "preload/real.h"
#include "preload/slot_table.h"
#include "preload/text.h"

#define DEEP_BIND_TEXT_BYTES 768
#define DEEP_BIND_NAMES_MAX 3

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

/* The slots looked at, by module. */
static struct slot_table deep_bind_slots;
/* Set while this thread's pass runs: a pass of a signal handler's
 * allocation inside it does nothing (the one under way sees every module). */
static __thread int deep_bind_running __attribute__((tls_model("initial-exec")));

/* One walk: the slots to rewrite and what was found. */
struct deep_bind_walk {
	struct import_rebinding rebindings[10];
	size_t count;
	unsigned modules, slots;
	char names[DEEP_BIND_TEXT_BYTES];
};

/* Whether info is the shim's own module. */
static int deep_bind_is_self(const struct dl_phdr_info *info)
{
	return phdr_load_holding(info, (uintptr_t)deep_bind_redirect, 1) != NULL;
}

/* dl_iterate_phdr callback: rewrites info's module's slots bound to the C
 * library, and names the module in the walk's text when it had any. */
static int deep_bind_one(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct deep_bind_walk *w = arg;
	int slots;

	/* the allocator's own calls of malloc and free go to it (new_bind.c) */
	if (deep_bind_is_self(info) || new_bind_is_allocator(info))
		return 0;
	slots = slot_table_rebind(&deep_bind_slots, info, size, w->rebindings, w->count, NULL);
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
	slot_table_pass_begin(&deep_bind_slots);
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
