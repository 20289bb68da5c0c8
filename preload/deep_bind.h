/*
 * preload/deep_bind.h - sends the allocator calls of libraries that bypass
 * the shim (loaded with RTLD_DEEPBIND) through it (deep_bind.c says how).
 */
#ifndef MPROF_PRELOAD_DEEP_BIND_H
#define MPROF_PRELOAD_DEEP_BIND_H

/*
 * Points every loaded module's GOT slots that are bound to the C library's
 * allocator entry points at the shim's, and reports the modules it changed
 * in one diagnostic.  Does nothing before real.h's table is filled.  Never
 * allocates; takes the loader's lock (dl_iterate_phdr).
 */
void deep_bind_redirect(void);

#endif
