/*
 * preload/namespaces.c - names a library that the program loaded with
 * dlmopen() into a namespace of its own.  Such a namespace gets a copy of
 * every library it needs, the C library too, and the LD_PRELOAD shim is not
 * among them: the malloc its code calls is that copy's, which nothing
 * wraps, so its allocations are missing from the trace and the report
 * would otherwise say nothing about them.  Reads the loader's
 * r_debug_extended chain (glibc 2.35 and later: r_version 2 once a second
 * namespace exists).  Never allocates.
 */
#define _GNU_SOURCE
#include <link.h>
#include <stdatomic.h>
#include <string.h>

#include "preload/diag.h"
#include "preload/namespaces.h"
#include "preload/text.h"

/* Whether name is a path of the C library (".../libc.so.6"). */
static int namespaces_is_libc(const char *name)
{
	const char *base = name ? strrchr(name, '/') : NULL;

	base = base ? base + 1 : name;
	return base && strncmp(base, "libc.so", 7) == 0;
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
 * loader's lock, and copies the first library of a namespace with a C
 * library of its own into arg (a buffer of 512 bytes). */
static int namespaces_look_one(struct dl_phdr_info *info, size_t size, void *arg)
{
	const struct r_debug_extended *ns = namespaces_head(info);
	char *found = arg;

	(void)size;
	if (!ns || ns->base.r_version < 2)
		return 1;
	for (ns = ns->r_next; ns; ns = ns->r_next) {
		const struct link_map *first = ns->base.r_map;

		for (const struct link_map *l = first; l; l = l->l_next) {
			if (!namespaces_is_libc(l->l_name))
				continue;
			preload_text_append(found, 512, first->l_name && first->l_name[0] ?
								 first->l_name : "a library");
			return 1;
		}
	}
	return 1;
}

void namespaces_look(void)
{
	static _Atomic int said;
	char found[512] = "", text[768] = "";

	if (atomic_load_explicit(&said, memory_order_relaxed))
		return;
	dl_iterate_phdr(namespaces_look_one, found);
	if (!found[0] || atomic_exchange(&said, 1))
		return;
	preload_text_append(text, sizeof(text), "the program loaded ");
	preload_text_append(text, sizeof(text), found);
	preload_text_append(text, sizeof(text),
			    " with dlmopen() into a namespace of its own, with a C library of "
			    "its own: the allocations made there are not recorded");
	diag_report(TRACE_DIAG_INFO, text);
}
