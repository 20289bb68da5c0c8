/*
 * preload/new_bind.h - sends the program's C++ operator new and delete
 * calls through the shim's wrappers when an allocator behind the shim
 * serves them itself (new_bind.c says how).
 */
#ifndef MPROF_PRELOAD_NEW_BIND_H
#define MPROF_PRELOAD_NEW_BIND_H

struct link_map;

/*
 * Takes the forms of operator new and delete that allocator (the module
 * whose _Znwm the program's lookup finds, behind the shim) defines, and
 * points every loaded module's GOT slots for them at the shim's wrappers
 * (preload/new_wrap.h): the allocator's own and the shim's excepted.
 * Returns how many modules had slots rewritten, or -1 when the allocator
 * defines no new and delete pair to wrap or a slot could not be rewritten
 * (its calls are not recorded).  Called by the initializing thread; may
 * call dlsym.
 */
int new_bind_start(struct link_map *allocator);

/*
 * new_bind_start's rewriting again for the modules loaded since (the
 * module rescan, the exit note), when it started; does nothing otherwise,
 * or inside this thread's own pass.  A module found bound to the
 * allocator's forms already is named in a TRACE_DIAG_FOREIGN_NEW
 * diagnostic (its calls until now may be missing).  Never allocates;
 * takes the loader's lock (dl_iterate_phdr).
 */
void new_bind_redirect(void);

struct dl_phdr_info;

/* Whether info's module is the allocator whose new and delete are wrapped
 * (new_bind_start found it): deep_bind.c leaves its slots alone. */
int new_bind_is_allocator(const struct dl_phdr_info *info);

#endif
