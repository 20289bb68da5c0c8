/*
 * preload/namespaces.c - names a library that the program loaded with
 * dlmopen() into a namespace of its own.  Such a namespace gets a copy of
 * every library it needs, the C library too, and the LD_PRELOAD shim is not
 * among them: the malloc its code calls is that copy's, which nothing
 * wraps, so its allocations are missing from the trace and the report
 * would otherwise say nothing about them.  The libraries LD_AUDIT names
 * live in such namespaces too, loaded by the loader before the program
 * runs: they are named as LD_AUDIT's, not as the program's dlmopen().
 * Reads the loader's r_debug_extended chain (glibc 2.35 and later:
 * r_version 2 once a second namespace exists).  Never allocates.
 */
#define _GNU_SOURCE
#include <link.h>
#include <stdatomic.h>
#include <string.h>

#include "preload/diag.h"
#include "preload/namespaces.h"
#include "preload/settings.h"
#include "preload/text.h"

#define NAMESPACES_NAME_BYTES 512
#define NAMESPACES_AUDIT_BYTES 1024

/* LD_AUDIT as the process started with it (the program may change its
 * environment later; the loader's allocations for an auditor can start
 * the recorder before environ is set); empty when unset or too long. */
static char namespaces_audit[NAMESPACES_AUDIT_BYTES];

/* The first library of each kind of namespace found by one walk. */
struct namespaces_found {
	char audit[NAMESPACES_NAME_BYTES];    /* loaded for LD_AUDIT */
	char dlmopen[NAMESPACES_NAME_BYTES];  /* loaded by the program */
};

/* Whether name is a path of the C library (".../libc.so.6"). */
static int namespaces_is_libc(const char *name)
{
	const char *base = name ? strrchr(name, '/') : NULL;

	base = base ? base + 1 : name;
	return base && strncmp(base, "libc.so", 7) == 0;
}

/* Whether the loaded library name is one LD_AUDIT lists (':'-separated):
 * the same path, or its file name when the entry has no '/' (the loader
 * searched for it). */
static int namespaces_is_audit(const char *name)
{
	const char *base = strrchr(name, '/');
	const char *entry = namespaces_audit;

	base = base ? base + 1 : name;
	while (*entry) {
		size_t n = strcspn(entry, ":");
		const char *want = memchr(entry, '/', n) ? name : base;

		if (n && strlen(want) == n && memcmp(want, entry, n) == 0)
			return 1;
		entry += n + (entry[n] == ':');
	}
	return 0;
}

/* The loader's r_debug_extended, from the DT_DEBUG entry of the main
 * program's dynamic section (info: the first module): the _r_debug symbol
 * may be the program's copy of the plain struct (a copy relocation), which
 * lacks r_next; NULL when there is none. */
static const struct r_debug_extended *namespaces_head(const struct dl_phdr_info *info)
{
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Dyn) *dyn;

		if (info->dlpi_phdr[i].p_type != PT_DYNAMIC)
			continue;
		dyn = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
		for (; dyn->d_tag != DT_NULL; dyn++)
			if (dyn->d_tag == DT_DEBUG)
				return (const struct r_debug_extended *)dyn->d_un.d_ptr;
	}
	return NULL;
}

/* dl_iterate_phdr callback: runs once (for the main program), under the
 * loader's lock, and copies the first library of the first namespace with
 * a C library of its own of each kind into arg (struct namespaces_found). */
static int namespaces_look_one(struct dl_phdr_info *info, size_t size, void *arg)
{
	const struct r_debug_extended *ns = namespaces_head(info);
	struct namespaces_found *found = arg;

	(void)size;
	if (!ns || ns->base.r_version < 2)
		return 1;
	for (ns = ns->r_next; ns; ns = ns->r_next) {
		const struct link_map *first = ns->base.r_map;
		const char *name = first && first->l_name && first->l_name[0] ? first->l_name
									       : "a library";
		char *slot = namespaces_is_audit(name) ? found->audit : found->dlmopen;

		for (const struct link_map *l = first; l && !slot[0]; l = l->l_next)
			if (namespaces_is_libc(l->l_name))
				preload_text_append(slot, NAMESPACES_NAME_BYTES, name);
	}
	return 1;
}

/* Reports name's namespace in a diagnostic, once per process and kind:
 * "OPENING NAME HOW into a namespace of its own, ...". */
static void namespaces_say(_Atomic int *said, const char *opening, const char *name,
			   const char *how)
{
	char text[768] = "";

	if (!name[0] || atomic_exchange(said, 1))
		return;
	preload_text_append(text, sizeof(text), opening);
	preload_text_append(text, sizeof(text), name);
	preload_text_append(text, sizeof(text), how);
	preload_text_append(text, sizeof(text),
			    " into a namespace of its own, with a C library of its own: the "
			    "allocations made there are not recorded");
	diag_report(TRACE_DIAG_INFO, text);
}

void namespaces_start(void)
{
	const char *audit = preload_getenv("LD_AUDIT");

	if (audit && strlen(audit) < sizeof(namespaces_audit))
		strcpy(namespaces_audit, audit);
}

void namespaces_look(void)
{
	static _Atomic int said_audit, said_dlmopen;
	struct namespaces_found found = { "", "" };

	if (atomic_load_explicit(&said_audit, memory_order_relaxed) &&
	    atomic_load_explicit(&said_dlmopen, memory_order_relaxed))
		return;
	dl_iterate_phdr(namespaces_look_one, &found);
	namespaces_say(&said_audit, "LD_AUDIT loaded ", found.audit, "");
	namespaces_say(&said_dlmopen, "the program loaded ", found.dlmopen, " with dlmopen()");
}
