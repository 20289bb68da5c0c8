/*
 * preload/deep_bind.h - sends the allocator calls of libraries that bypass
 * the shim (loaded with RTLD_DEEPBIND) through it (deep_bind.c says how).
 */
#ifndef MPROF_PRELOAD_DEEP_BIND_H
#define MPROF_PRELOAD_DEEP_BIND_H

/*
 * Points every loaded module's GOT slots that are bound to the C library's
 * allocator entry points at the shim's, and reports the modules it changed
 * in one diagnostic.  A module's relocations are read at its first pass
 * (again after an unload when it is another module); later passes look
 * only at its slots not bound then.  Does nothing before real.h's table is
 * filled, with a foreign malloc (real.h), nor inside this thread's own
 * pass (a signal's allocation).  Never
 * allocates (its table is mapped memory); takes the loader's lock
 * (dl_iterate_phdr).
 */
void deep_bind_redirect(void);

#endif
