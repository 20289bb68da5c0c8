/*
 * audit_lib.c - an LD_AUDIT library (rtld-audit(7)) that allocates: the
 * loader puts it in a link-map namespace of its own, with a C library of
 * its own, before the program runs (tests/e2e/dlmopen-namespace.sh).  It
 * keeps a block from la_version and copies and frees each loaded object's
 * name; it prints nothing.
 */
#define _GNU_SOURCE
#include <link.h>
#include <stdlib.h>
#include <string.h>

void *volatile audit_lib_sink;

unsigned int la_version(unsigned int version)
{
	audit_lib_sink = malloc(123);
	return version;
}

unsigned int la_objopen(struct link_map *map, Lmid_t lmid, uintptr_t *cookie)
{
	char *name = strdup(map->l_name);

	(void)lmid;
	(void)cookie;
	free(name);
	return 0;
}
