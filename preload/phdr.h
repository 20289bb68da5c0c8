/*
 * preload/phdr.h - where an address lies among one module's segments, as
 * dl_iterate_phdr describes the module (struct dl_phdr_info).
 */
#ifndef MPROF_PRELOAD_PHDR_H
#define MPROF_PRELOAD_PHDR_H

#include <link.h>
#include <stddef.h>
#include <stdint.h>

/* The PT_LOAD segment of info whose memory image (p_memsz bytes from the
 * load bias plus p_vaddr) holds all of [addr, addr + len), or NULL. */
static inline const ElfW(Phdr) *phdr_load_holding(const struct dl_phdr_info *info,
						   uintptr_t addr, size_t len)
{
	/* Segments lie at the load bias or above, so an address below it is
	 * in none, whatever the headers say (read from the module's first
	 * page: a walk over thousands of modules skips their pages).  Headers
	 * below the bias mean vaddrs that wrap around it: read them then. */
	if (addr < info->dlpi_addr && (uintptr_t)info->dlpi_phdr >= info->dlpi_addr)
		return NULL;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t off = addr - (info->dlpi_addr + ph->p_vaddr);

		if (ph->p_type == PT_LOAD && off < ph->p_memsz && len <= ph->p_memsz - off)
			return ph;
	}
	return NULL;
}

/* The span of info's PT_LOAD segments' memory images, relative to its load
 * bias: the lowest p_vaddr in *lo and the highest p_vaddr + p_memsz in
 * *hi (UINTPTR_MAX and 0 without a segment). */
static inline void phdr_load_span(const struct dl_phdr_info *info, uintptr_t *lo, uintptr_t *hi)
{
	*lo = UINTPTR_MAX;
	*hi = 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type != PT_LOAD)
			continue;
		if (ph->p_vaddr < *lo)
			*lo = ph->p_vaddr;
		if (ph->p_vaddr + ph->p_memsz > *hi)
			*hi = ph->p_vaddr + ph->p_memsz;
	}
}

#endif
