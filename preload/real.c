/*
 * preload/real.c - resolution of the real allocator behind the shim.
 *
 * Owns the table of real entry points.  Must not call any allocator itself
 * (dlsym may, and is answered from the bootstrap arena).  The most used
 * entries are resolved first so the window in which racing threads fall
 * back to the arena stays as short as possible.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <gnu/libc-version.h>
#include <link.h>

#include "preload/import_bind.h"
#include "preload/real.h"

struct real_allocator real;
struct real_allocator real_libc;

/* Stores one looked-up symbol into table with release order (see
 * real_get_from). */
#define REAL_RESOLVE_INTO(table, field, name) \
	__atomic_store_n(&(table).field, (__typeof__((table).field))dlsym(RTLD_NEXT, name), \
			 __ATOMIC_RELEASE)
#define REAL_RESOLVE(field, name) REAL_RESOLVE_INTO(real, field, name)

/*
 * The link map of the module whose mapping holds addr, or NULL.
 * _dl_find_object (glibc 2.35) searches the loader's sorted table (~6 ns)
 * where dladdr walks the module's whole symbol table (~10 us for the C
 * library); before the loader has built that table (a malloc during its
 * own start) it answers not found, and dladdr1 answers instead.
 */
static struct link_map *real_module_of(const void *addr)
{
	struct link_map *map = NULL;
	Dl_info found;
#ifdef DLFO_EH_SEGMENT_TYPE
	struct dl_find_object obj;

	if (_dl_find_object((void *)addr, &obj) == 0 && obj.dlfo_link_map)
		return obj.dlfo_link_map;
#endif
	if (!dladdr1(addr, &found, (void **)&map, RTLD_DL_LINKMAP))
		return NULL;
	return map;
}

/* Whether the free found behind the shim lies in the C library itself
 * (gnu_get_libc_version exists only there).  Comparing with __libc_free is
 * not enough: tcmalloc and mimalloc export that name for their own free. */
static int real_free_is_glibc(void)
{
	const struct link_map *libc = real_module_of((const void *)gnu_get_libc_version);

	return real.free && libc && real_module_of((const void *)real.free) == libc;
}

void real_resolve(void)
{
	REAL_RESOLVE(malloc, "malloc");
	REAL_RESOLVE(calloc, "calloc");
	REAL_RESOLVE(free, "free");
	REAL_RESOLVE(realloc, "realloc");
	REAL_RESOLVE(reallocarray, "reallocarray");
	REAL_RESOLVE(posix_memalign, "posix_memalign");
	REAL_RESOLVE(aligned_alloc, "aligned_alloc");
	REAL_RESOLVE(memalign, "memalign");
	REAL_RESOLVE(valloc, "valloc");
	REAL_RESOLVE(pvalloc, "pvalloc");
	REAL_RESOLVE(malloc_usable_size, "malloc_usable_size");
	REAL_RESOLVE(dlclose, "dlclose");
	__atomic_store_n(&real.glibc_chunks, real_free_is_glibc(), __ATOMIC_RELEASE);
	REAL_RESOLVE_INTO(real_libc, malloc, "__libc_malloc");
	REAL_RESOLVE_INTO(real_libc, free, "__libc_free");
	REAL_RESOLVE_INTO(real_libc, calloc, "__libc_calloc");
	REAL_RESOLVE_INTO(real_libc, realloc, "__libc_realloc");
	REAL_RESOLVE_INTO(real_libc, memalign, "__libc_memalign");
	REAL_RESOLVE_INTO(real_libc, valloc, "__libc_valloc");
	REAL_RESOLVE_INTO(real_libc, pvalloc, "__libc_pvalloc");
}

/* Points the slots of the module defining fn (an entry of real), unless it
 * is the C library (whose link map is libc), for the C library's __libc_
 * entry points at real_libc's. */
static void real_route_module(const void *fn, const struct link_map *libc)
{
	struct import_binding bindings[] = {
		{ "__libc_malloc", (void *)real_libc.malloc, 0 },
		{ "__libc_free", (void *)real_libc.free, 0 },
		{ "__libc_calloc", (void *)real_libc.calloc, 0 },
		{ "__libc_realloc", (void *)real_libc.realloc, 0 },
		{ "__libc_memalign", (void *)real_libc.memalign, 0 },
		{ "__libc_valloc", (void *)real_libc.valloc, 0 },
		{ "__libc_pvalloc", (void *)real_libc.pvalloc, 0 },
	};
	struct link_map *map = fn ? real_module_of(fn) : NULL;

	if (!map || map == libc)
		return;
	for (size_t i = 0; i < sizeof(bindings) / sizeof(bindings[0]); i++)
		if (!bindings[i].fn)
			return;
	import_bind_module(map, bindings, sizeof(bindings) / sizeof(bindings[0]));
}

void real_route_behind(void)
{
	const struct link_map *libc = real_module_of((const void *)gnu_get_libc_version);

	if (!libc)
		return;
	real_route_module((const void *)real.malloc, libc);
	real_route_module((const void *)real.calloc, libc);
	real_route_module((const void *)real.free, libc);
	real_route_module((const void *)real.realloc, libc);
	real_route_module((const void *)real.reallocarray, libc);
	real_route_module((const void *)real.posix_memalign, libc);
	real_route_module((const void *)real.aligned_alloc, libc);
	real_route_module((const void *)real.memalign, libc);
	real_route_module((const void *)real.valloc, libc);
	real_route_module((const void *)real.pvalloc, libc);
}

void *real_foreign_definition(const char *name, struct link_map **map)
{
	void *sym = dlsym(RTLD_DEFAULT, name);
	Dl_info found, self;
	const ElfW(Sym) *entry = NULL;

	*map = NULL;
	if (!sym || !dladdr1(sym, &found, (void **)map, RTLD_DL_LINKMAP) || !*map ||
	    !dladdr((void *)real_foreign_definition, &self) || found.dli_fbase == self.dli_fbase)
		return NULL;
	/* A non-PIE program that takes the function's address exports an
	 * undefined symbol whose value is its PLT stub (the canonical
	 * address): that stub jumps to the shim, so it is not a definition. */
	if (dladdr1(sym, &found, (void **)&entry, RTLD_DL_SYMENT) && entry &&
	    entry->st_shndx == SHN_UNDEF)
		return NULL;
	return sym;
}

void real_use_foreign(void)
{
	struct link_map *map;
	void *fn;

	/* Measured: `sort -n` of 200,000 lines with jemalloc ahead of the shim
	 * got blocks from the C library's heap through the shim's reallocarray
	 * and died of SIGSEGV when jemalloc freed them. */
	if ((fn = real_foreign_definition("realloc", &map)) != NULL)
		__atomic_store_n(&real.foreign_realloc, (void *(*)(void *, size_t))fn,
				 __ATOMIC_RELEASE);
	if ((fn = real_foreign_definition("free", &map)) != NULL)
		__atomic_store_n(&real.foreign_free, (void (*)(void *))fn, __ATOMIC_RELEASE);
	/* The shim's free may get the foreign allocator's blocks (when it
	 * defines malloc and not free). */
	__atomic_store_n(&real.glibc_chunks, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&real.foreign, 1, __ATOMIC_RELEASE);
}
