/*
 * preload/import_bind.c - points one loaded module's calls of named
 * functions at other functions (see preload/import_bind.h).
 *
 * A module calls an imported function through its GOT slot for it (a PLT
 * entry jumps through a JUMP_SLOT; code built with -fno-plt calls through a
 * GLOB_DAT), which the loader filled with the definition it found, or with
 * the PLT's resolver entry while binding is lazy.  Storing another address
 * there changes where that module's calls go and no one else's: the
 * program and its other libraries keep their own slots.  The module's
 * dynamic section names its symbol and string tables and its relocations;
 * the slots of the names asked for are rewritten.  Slots in the module's
 * RELRO range are read-only once relocated: they are written through
 * /proc/self/mem, which leaves the page's protection alone (the loader may
 * be relocating that page in another thread); where that file cannot be
 * written, the page is made writable for the store and read-only again.
 * Never allocates.  Knows the relocations of x86-64 and AArch64 only.  A
 * module is found by a dlopen handle, or by its program headers while
 * dl_iterate_phdr walks the modules.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <stdint.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>

#include "preload/import_bind.h"
#include "preload/phdr.h"
#include "preload/seccomp_watch.h"
#include "preload/sys.h"

#if defined(__x86_64__)
#define IMPORT_R_JUMP_SLOT R_X86_64_JUMP_SLOT
#define IMPORT_R_GLOB_DAT R_X86_64_GLOB_DAT
#elif defined(__aarch64__)
#define IMPORT_R_JUMP_SLOT R_AARCH64_JUMP_SLOT
#define IMPORT_R_GLOB_DAT R_AARCH64_GLOB_DAT
#endif

#ifdef IMPORT_R_JUMP_SLOT

#if __ELF_NATIVE_CLASS == 64
#define IMPORT_R_TYPE(info) ELF64_R_TYPE(info)
#define IMPORT_R_SYM(info) ELF64_R_SYM(info)
#else
#define IMPORT_R_TYPE(info) ELF32_R_TYPE(info)
#define IMPORT_R_SYM(info) ELF32_R_SYM(info)
#endif

/* What the rewriting needs of one module, addresses absolute. */
struct import_module {
	uintptr_t base; /* load address (link_map's l_addr) */
	const ElfW(Dyn) *dynamic;
	const ElfW(Sym) *symtab;
	const char *strtab;
	const ElfW(Rela) *plt_relocs, *data_relocs;
	size_t plt_relocs_bytes, data_relocs_bytes;
	uintptr_t relro_start, relro_end; /* the pages the loader made read-only */
	uintptr_t page_bytes;
};

/* A dynamic-section address: glibc adds the load address to these entries
 * where the section is writable (x86-64, AArch64); one below the load
 * address is still relative. */
static uintptr_t import_addr(const struct import_module *m, ElfW(Addr) ptr)
{
	return ptr < m->base ? m->base + ptr : ptr;
}

/* dl_iterate_phdr callback: the RELRO pages of the module whose dynamic
 * section is m->dynamic, rounded down at both ends as glibc protects them. */
static int import_relro_scan(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct import_module *m = arg;
	const ElfW(Phdr) *relro = NULL;
	int mine = 0;

	(void)size;
	if (info->dlpi_addr != m->base)
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_DYNAMIC &&
		    info->dlpi_addr + ph->p_vaddr == (uintptr_t)m->dynamic)
			mine = 1;
		if (ph->p_type == PT_GNU_RELRO)
			relro = ph;
	}
	if (!mine)
		return 0;
	if (relro) {
		m->relro_start = (info->dlpi_addr + relro->p_vaddr) & ~(m->page_bytes - 1);
		m->relro_end = (info->dlpi_addr + relro->p_vaddr + relro->p_memsz) &
			       ~(m->page_bytes - 1);
	}
	return 1;
}

/* Fills m's tables from its dynamic section (m->base and m->dynamic set);
 * -ENOENT when a table is missing. */
static int import_module_tables(struct import_module *m)
{
	m->page_bytes = getauxval(AT_PAGESZ);
	if (!m->page_bytes)
		m->page_bytes = 4096;
	for (const ElfW(Dyn) *d = m->dynamic; d->d_tag != DT_NULL; d++) {
		switch (d->d_tag) {
		case DT_SYMTAB:
			m->symtab = (const ElfW(Sym) *)import_addr(m, d->d_un.d_ptr);
			break;
		case DT_STRTAB:
			m->strtab = (const char *)import_addr(m, d->d_un.d_ptr);
			break;
		case DT_JMPREL:
			m->plt_relocs = (const ElfW(Rela) *)import_addr(m, d->d_un.d_ptr);
			break;
		case DT_PLTRELSZ:
			m->plt_relocs_bytes = d->d_un.d_val;
			break;
		case DT_RELA:
			m->data_relocs = (const ElfW(Rela) *)import_addr(m, d->d_un.d_ptr);
			break;
		case DT_RELASZ:
			m->data_relocs_bytes = d->d_un.d_val;
			break;
		}
	}
	return m->symtab && m->strtab ? 0 : -ENOENT;
}

/* Fills m from the link map of handle; -ENOENT when a table is missing. */
static int import_module_read(void *handle, struct import_module *m)
{
	struct link_map *map;
	int rc;

	memset(m, 0, sizeof(*m));
	if (dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0 || !map || !map->l_ld)
		return -ENOENT;
	m->base = map->l_addr;
	m->dynamic = map->l_ld;
	rc = import_module_tables(m);
	if (rc == 0)
		dl_iterate_phdr(import_relro_scan, m);
	return rc;
}

/* Fills m's load address, dynamic section, RELRO pages and page size from
 * a module's program headers, as dl_iterate_phdr gives them (no second
 * walk: the caller may be inside one); the tables stay unread. */
static void import_module_phdr(const struct dl_phdr_info *info, struct import_module *m)
{
	const ElfW(Phdr) *relro = NULL;

	memset(m, 0, sizeof(*m));
	m->base = info->dlpi_addr;
	m->page_bytes = getauxval(AT_PAGESZ);
	if (!m->page_bytes)
		m->page_bytes = 4096;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_DYNAMIC)
			m->dynamic = (const ElfW(Dyn) *)(info->dlpi_addr + ph->p_vaddr);
		else if (ph->p_type == PT_GNU_RELRO)
			relro = ph;
	}
	if (relro) {
		m->relro_start = (m->base + relro->p_vaddr) & ~(m->page_bytes - 1);
		m->relro_end = (m->base + relro->p_vaddr + relro->p_memsz) & ~(m->page_bytes - 1);
	}
}

/* Fills m from a module's program headers and dynamic section; -ENOENT
 * without tables. */
static int import_module_from_phdr(const struct dl_phdr_info *info, struct import_module *m)
{
	import_module_phdr(info, m);
	if (!m->dynamic || import_module_tables(m) < 0)
		return -ENOENT;
	return 0;
}

/* Writes fn into the slot through /proc/self/mem, whose writes pass a
 * read-only private mapping without changing its protection; -1 when the
 * file cannot be opened or written (no /proc mounted, a kernel that
 * refuses such writes) or may not be tried (a seccomp filter may kill the
 * process for the open).  Opened for each write: a descriptor kept would
 * write into the parent's memory after a fork. */
static int import_slot_write_mem(uintptr_t slot, void *fn)
{
	ssize_t written;
	int fd;

	if (seccomp_watch_filtered() || slot > (uintptr_t)INT64_MAX)
		return -1;
	fd = sys_open("/proc/self/mem", O_RDWR | O_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	do
		written = sys_pwrite(fd, &fn, sizeof(fn), (off_t)slot);
	while (written < 0 && errno == EINTR);
	sys_close(fd);
	return written == (ssize_t)sizeof(fn) ? 0 : -1;
}

/* Stores fn in the slot.  A slot in the RELRO range is written through
 * /proc/self/mem: dl_iterate_phdr shows a module a dlopen in another
 * thread is still relocating, and making its page writable and read-only
 * again would take it from the loader while it writes there (or give it
 * back writable after the loader's own RELRO step).  Only where that
 * write cannot be made is the page made writable for the store and
 * read-only again. */
static int import_slot_store(const struct import_module *m, uintptr_t slot, void *fn)
{
	void *page = (void *)(slot & ~(m->page_bytes - 1));
	int saved = errno;

	if (slot < m->relro_start || slot >= m->relro_end) {
		__atomic_store_n((void **)slot, fn, __ATOMIC_RELEASE);
		return 0;
	}
	if (import_slot_write_mem(slot, fn) == 0) {
		errno = saved;
		return 0;
	}
	errno = saved;
	if (mprotect(page, m->page_bytes, PROT_READ | PROT_WRITE) != 0)
		return -errno;
	__atomic_store_n((void **)slot, fn, __ATOMIC_RELEASE);
	mprotect(page, m->page_bytes, PROT_READ);
	return 0;
}

/* Whether relocation r fills a slot of a function's address (a PLT entry or
 * a GOT entry of data relocations). */
static inline int import_reloc_is_slot(const ElfW(Rela) *r)
{
	unsigned long type = IMPORT_R_TYPE(r->r_info);

	return type == IMPORT_R_JUMP_SLOT || type == IMPORT_R_GLOB_DAT;
}

/* The name of relocation r's symbol. */
static inline const char *import_reloc_name(const struct import_module *m, const ElfW(Rela) *r)
{
	return m->strtab + m->symtab[IMPORT_R_SYM(r->r_info)].st_name;
}

/* Rewrites the slots of the bindings' names among bytes of relocations. */
static int import_relocs_bind(const struct import_module *m, const ElfW(Rela) *relocs,
			      size_t bytes, struct import_binding *bindings, size_t count)
{
	for (size_t i = 0; relocs && i < bytes / sizeof(*relocs); i++) {
		const char *name;

		if (!import_reloc_is_slot(&relocs[i]))
			continue;
		name = import_reloc_name(m, &relocs[i]);
		for (size_t k = 0; k < count; k++) {
			int rc;

			if (strcmp(name, bindings[k].name) != 0)
				continue;
			rc = import_slot_store(m, m->base + relocs[i].r_offset, bindings[k].fn);
			if (rc < 0)
				return rc;
			bindings[k].slots++;
		}
	}
	return 0;
}

int import_bind_module(void *handle, struct import_binding *bindings, size_t count)
{
	struct import_module m;
	int rc = import_module_read(handle, &m);

	if (rc < 0)
		return rc;
	rc = import_relocs_bind(&m, m.plt_relocs, m.plt_relocs_bytes, bindings, count);
	if (rc < 0)
		return rc;
	return import_relocs_bind(&m, m.data_relocs, m.data_relocs_bytes, bindings, count);
}

/* Whether a relocated slot holding bound, of the module at base whose
 * highest segment ends extent bytes above it, points into the module:
 * lazy binding's PLT entry, not bound yet. */
static int import_slot_lazy(uintptr_t base, uintptr_t extent, uintptr_t bound)
{
	return bound - base < extent;
}

/* Whether such a slot holds a value of the module's own: its link-time
 * value while not relocated, or lazy binding's PLT entry. */
static int import_slot_unbound(uintptr_t base, uintptr_t extent, uintptr_t bound)
{
	return bound < extent || import_slot_lazy(base, extent, bound);
}

/* Rewrites, among bytes of relocations, the slots bound to a rebinding's
 * from, and those relocated and not bound yet when extent (the module's,
 * not 0) is given; returns how many, or mprotect's negative errno. */
static int import_relocs_rebind(const struct import_module *m, const ElfW(Rela) *relocs,
				size_t bytes, const struct import_rebinding *rebindings,
				size_t count, uintptr_t extent)
{
	int slots = 0;

	for (size_t i = 0; relocs && i < bytes / sizeof(*relocs); i++) {
		uintptr_t slot = m->base + relocs[i].r_offset;
		const void *bound;
		const char *name;
		int unbound;

		if (!import_reloc_is_slot(&relocs[i]))
			continue;
		bound = __atomic_load_n((void **)slot, __ATOMIC_RELAXED);
		/* relocated and not bound yet: lazy binding's PLT entry (a slot
		 * not relocated yet, during a dlopen, is left to a later pass) */
		unbound = extent && import_slot_lazy(m->base, extent, (uintptr_t)bound);
		for (size_t k = 0; k < count; k++) {
			int rc;

			if (bound != rebindings[k].from && !unbound)
				continue;
			name = import_reloc_name(m, &relocs[i]);
			if (strcmp(name, rebindings[k].name) != 0)
				continue;
			rc = import_slot_store(m, slot, rebindings[k].to);
			if (rc < 0)
				return rc;
			slots++;
			break;
		}
	}
	return slots;
}

/* import_rebind_loaded, the slots not bound yet too when extent (the
 * module's) is not 0. */
static int import_rebind_loaded_upto(const struct dl_phdr_info *info,
				     const struct import_rebinding *rebindings, size_t count,
				     uintptr_t extent)
{
	struct import_module m;
	int rc = import_module_from_phdr(info, &m), plt;

	if (rc < 0)
		return rc;
	plt = import_relocs_rebind(&m, m.plt_relocs, m.plt_relocs_bytes, rebindings, count,
				   extent);
	if (plt < 0)
		return plt;
	rc = import_relocs_rebind(&m, m.data_relocs, m.data_relocs_bytes, rebindings, count,
				  extent);
	return rc < 0 ? rc : plt + rc;
}

int import_rebind_loaded(const struct dl_phdr_info *info, const struct import_rebinding *rebindings,
			 size_t count)
{
	return import_rebind_loaded_upto(info, rebindings, count, 0);
}

/* The end of info's highest PT_LOAD segment, relative to its load address. */
static uintptr_t import_module_extent(const struct dl_phdr_info *info)
{
	uintptr_t lo, hi;

	phdr_load_span(info, &lo, &hi);
	return hi;
}

int import_rebind_loaded_lazy(const struct dl_phdr_info *info,
			      const struct import_rebinding *rebindings, size_t count)
{
	uintptr_t extent = import_module_extent(info);

	return import_rebind_loaded_upto(info, rebindings, count, extent ? extent : 1);
}

/* Appends to slots (while under cap) the slots among bytes of relocations
 * whose symbol is a rebinding's name; returns how many it met in all. */
static size_t import_relocs_find(const struct import_module *m, const ElfW(Rela) *relocs,
				 size_t bytes, const struct import_rebinding *rebindings,
				 size_t count, struct import_slot *slots, size_t met, size_t cap)
{
	for (size_t i = 0; relocs && i < bytes / sizeof(*relocs); i++) {
		const char *name;

		if (!import_reloc_is_slot(&relocs[i]))
			continue;
		name = import_reloc_name(m, &relocs[i]);
		for (size_t k = 0; k < count; k++) {
			if (strcmp(name, rebindings[k].name) != 0)
				continue;
			if (met < cap)
				slots[met] = (struct import_slot){ m->base + relocs[i].r_offset,
								   (uint32_t)k, 0 };
			met++;
			break;
		}
	}
	return met;
}

int import_slots_find(const struct dl_phdr_info *info, const struct import_rebinding *rebindings,
		      size_t count, struct import_slot *slots, size_t cap)
{
	struct import_module m;
	size_t met;

	if (import_module_from_phdr(info, &m) < 0)
		return -ENOENT;
	met = import_relocs_find(&m, m.plt_relocs, m.plt_relocs_bytes, rebindings, count, slots, 0,
				 cap);
	met = import_relocs_find(&m, m.data_relocs, m.data_relocs_bytes, rebindings, count, slots,
				 met, cap);
	return met > INT32_MAX ? INT32_MAX : (int)met;
}

/* Fills m with the tables of the loaded module map; -ENOENT when it has
 * no dynamic section or they cannot be read. */
static int import_module_from_map(const struct link_map *map, struct import_module *m)
{
	memset(m, 0, sizeof(*m));
	if (!map->l_ld)
		return -ENOENT;
	m->base = map->l_addr;
	m->dynamic = map->l_ld;
	return import_module_tables(m) < 0 ? -ENOENT : 0;
}

int import_module_slots(const struct link_map *map, const char *name)
{
	const struct import_rebinding wanted = { name, NULL, NULL };
	struct import_module m;
	size_t met;

	if (import_module_from_map(map, &m) < 0)
		return -ENOENT;
	met = import_relocs_find(&m, m.plt_relocs, m.plt_relocs_bytes, &wanted, 1, NULL, 0, 0);
	met = import_relocs_find(&m, m.data_relocs, m.data_relocs_bytes, &wanted, 1, NULL, met, 0);
	return met > INT32_MAX ? INT32_MAX : (int)met;
}

/* How many slots among bytes of relocations are of name and bound to a
 * symbol the module does not define itself. */
static size_t import_relocs_undefined(const struct import_module *m, const ElfW(Rela) *relocs,
				      size_t bytes, const char *name)
{
	size_t met = 0;

	for (size_t i = 0; relocs && i < bytes / sizeof(*relocs); i++) {
		if (import_reloc_is_slot(&relocs[i]) &&
		    m->symtab[IMPORT_R_SYM(relocs[i].r_info)].st_shndx == SHN_UNDEF &&
		    strcmp(import_reloc_name(m, &relocs[i]), name) == 0)
			met++;
	}
	return met;
}

int import_module_imports(const struct link_map *map, const char *name)
{
	struct import_module m;
	size_t met;

	if (import_module_from_map(map, &m) < 0)
		return -ENOENT;
	met = import_relocs_undefined(&m, m.plt_relocs, m.plt_relocs_bytes, name) +
	      import_relocs_undefined(&m, m.data_relocs, m.data_relocs_bytes, name);
	return met > INT32_MAX ? INT32_MAX : (int)met;
}

int import_slots_rebind(const struct dl_phdr_info *info, const struct import_rebinding *rebindings,
			struct import_slot *slots, size_t n, unsigned *lazy)
{
	struct import_module m;
	uintptr_t extent = import_module_extent(info);
	int rewritten = 0;

	import_module_phdr(info, &m);
	for (size_t i = 0; i < n; i++) {
		const struct import_rebinding *r = &rebindings[slots[i].which];
		uintptr_t bound = (uintptr_t)__atomic_load_n((void **)slots[i].addr, __ATOMIC_RELAXED);
		int is_lazy = lazy && import_slot_lazy(m.base, extent, bound);
		int rc;

		/* not relocated yet (its link-time value) or lazily bound (its
		 * own PLT entry) and left so: its definition is still to come */
		slots[i].pending = !is_lazy && import_slot_unbound(m.base, extent, bound);
		if (bound != (uintptr_t)r->from && !is_lazy)
			continue;
		rc = import_slot_store(&m, slots[i].addr, r->to);
		if (rc < 0)
			return rc;
		if (is_lazy)
			(*lazy)++;
		else
			rewritten++;
	}
	return rewritten;
}

#else

int import_slots_find(const struct dl_phdr_info *info, const struct import_rebinding *rebindings,
		      size_t count, struct import_slot *slots, size_t cap)
{
	(void)info;
	(void)rebindings;
	(void)count;
	(void)slots;
	(void)cap;
	return -ENOTSUP;
}

int import_slots_rebind(const struct dl_phdr_info *info, const struct import_rebinding *rebindings,
			struct import_slot *slots, size_t n, unsigned *lazy)
{
	(void)info;
	(void)rebindings;
	(void)slots;
	(void)n;
	(void)lazy;
	return -ENOTSUP;
}

int import_module_slots(const struct link_map *map, const char *name)
{
	(void)map;
	(void)name;
	return -ENOTSUP;
}

int import_module_imports(const struct link_map *map, const char *name)
{
	(void)map;
	(void)name;
	return -ENOTSUP;
}

int import_rebind_loaded_lazy(const struct dl_phdr_info *info,
			      const struct import_rebinding *rebindings, size_t count)
{
	(void)info;
	(void)rebindings;
	(void)count;
	return -ENOTSUP;
}

int import_rebind_loaded(const struct dl_phdr_info *info, const struct import_rebinding *rebindings,
			 size_t count)
{
	(void)info;
	(void)rebindings;
	(void)count;
	return -ENOTSUP;
}

int import_bind_module(void *handle, struct import_binding *bindings, size_t count)
{
	(void)handle;
	(void)bindings;
	(void)count;
	return -ENOTSUP;
}

#endif
