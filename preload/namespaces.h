/*
 * preload/namespaces.h - libraries loaded by dlmopen() (or for LD_AUDIT)
 * into link-map namespaces of their own, whose C library (and malloc) the
 * shim does not wrap.
 */
#ifndef MPROF_PRELOAD_NAMESPACES_H
#define MPROF_PRELOAD_NAMESPACES_H

/*
 * Keeps a copy of LD_AUDIT as the process starts with it (at most 1023
 * bytes; a longer one is not kept), to tell its libraries from the
 * program's.  Called once, by the initializing thread.
 */
void namespaces_start(void);

/*
 * Looks through the loader's namespaces other than the default one; the
 * first that holds a C library of its own is named, once per process, in
 * a diagnostic (its allocations are not recorded); one that LD_AUDIT
 * loaded is named apart, as LD_AUDIT's, also once.  Walks the loader's
 * lists inside a dl_iterate_phdr callback, under the loader's lock.  Never
 * allocates; not for the allocator's hot path.
 */
void namespaces_look(void);

#endif
