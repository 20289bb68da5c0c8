/*
 * preload/namespaces.h - libraries loaded by dlmopen() into link-map
 * namespaces of their own, whose C library (and malloc) the shim does not
 * wrap.
 */
#ifndef MPROF_PRELOAD_NAMESPACES_H
#define MPROF_PRELOAD_NAMESPACES_H

/*
 * Looks through the loader's namespaces other than the default one; the
 * first that holds a C library of its own is named, once per process, in
 * a diagnostic (its allocations are not recorded).  Walks the loader's
 * lists inside a dl_iterate_phdr callback, under the loader's lock.  Never
 * allocates; not for the allocator's hot path.
 */
void namespaces_look(void);

#endif
