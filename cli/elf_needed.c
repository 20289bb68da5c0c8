/*
 * cli/elf_needed.c - reads a program's DT_NEEDED names (see
 * cli/elf_needed.h): the ELF header, the program headers, the dynamic
 * section and the strings it names, with pread, mapping the string table's
 * address to a file offset through the PT_LOAD segments.
 */
#include "config.h"

#include <elf.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/elf_needed.h"

#define NEEDED_PHDR_LIMIT 4096
#define NEEDED_DYN_LIMIT 4096 /* dynamic entries read at most */

/* Sanitizer runtimes that serve malloc, by soname prefix. */
static const struct {
	const char *prefix;
	const char *name;
} needed_sanitizers[] = {
	{ "libasan.so", "AddressSanitizer" },
	{ "libhwasan.so", "HWAddressSanitizer" },
	{ "libtsan.so", "ThreadSanitizer" },
	{ "liblsan.so", "LeakSanitizer" },
};

static int needed_read(int fd, void *buf, size_t n, uint64_t off)
{
	return pread(fd, buf, n, (off_t)off) == (ssize_t)n ? 0 : -1;
}

/* The file offset of address vaddr, by the PT_LOAD segment holding it;
 * UINT64_MAX when none does. */
static uint64_t needed_offset(const Elf64_Phdr *ph, unsigned n, uint64_t vaddr)
{
	for (unsigned i = 0; i < n; i++)
		if (ph[i].p_type == PT_LOAD && vaddr >= ph[i].p_vaddr &&
		    vaddr - ph[i].p_vaddr < ph[i].p_filesz)
			return vaddr - ph[i].p_vaddr + ph[i].p_offset;
	return UINT64_MAX;
}

/* Matches the DT_NEEDED names of the open file fd against the table. */
static const char *needed_scan(int fd, char *soname, size_t size)
{
	Elf64_Ehdr eh;
	Elf64_Phdr *ph = NULL;
	Elf64_Dyn *dyn = NULL;
	const char *found = NULL;
	uint64_t strtab = UINT64_MAX, dyn_n = 0;
	unsigned n;

	if (needed_read(fd, &eh, sizeof(eh), 0) < 0 || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phentsize != sizeof(Elf64_Phdr) ||
	    eh.e_phnum == 0 || eh.e_phnum > NEEDED_PHDR_LIMIT)
		return NULL;
	n = eh.e_phnum;
	ph = malloc(n * sizeof(*ph));
	if (!ph || needed_read(fd, ph, n * sizeof(*ph), eh.e_phoff) < 0)
		goto out;
	for (unsigned i = 0; i < n && !dyn; i++) {
		if (ph[i].p_type != PT_DYNAMIC)
			continue;
		dyn_n = ph[i].p_filesz / sizeof(*dyn);
		dyn_n = dyn_n < NEEDED_DYN_LIMIT ? dyn_n : NEEDED_DYN_LIMIT;
		dyn = dyn_n ? malloc(dyn_n * sizeof(*dyn)) : NULL;
		if (dyn && needed_read(fd, dyn, dyn_n * sizeof(*dyn), ph[i].p_offset) < 0)
			goto out;
	}
	if (!dyn)
		goto out;
	for (uint64_t i = 0; i < dyn_n && dyn[i].d_tag != DT_NULL; i++)
		if (dyn[i].d_tag == DT_STRTAB)
			strtab = needed_offset(ph, n, dyn[i].d_un.d_ptr);
	for (uint64_t i = 0; strtab != UINT64_MAX && i < dyn_n && dyn[i].d_tag != DT_NULL && !found;
	     i++) {
		char name[256];
		ssize_t got;

		if (dyn[i].d_tag != DT_NEEDED)
			continue;
		got = pread(fd, name, sizeof(name) - 1, (off_t)(strtab + dyn[i].d_un.d_val));
		if (got <= 0)
			continue;
		name[got] = '\0';
		for (size_t k = 0; k < sizeof(needed_sanitizers) / sizeof(needed_sanitizers[0]); k++)
			if (strncmp(name, needed_sanitizers[k].prefix,
				    strlen(needed_sanitizers[k].prefix)) == 0) {
				found = needed_sanitizers[k].name;
				if (size) {
					strncpy(soname, name, size - 1);
					soname[size - 1] = '\0';
				}
				break;
			}
	}
out:
	free(dyn);
	free(ph);
	return found;
}

const char *elf_needed_sanitizer(const char *path, char *soname, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	const char *found;

	if (fd < 0)
		return NULL;
	found = needed_scan(fd, soname, size);
	close(fd);
	return found;
}
