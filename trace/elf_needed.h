/*
 * trace/elf_needed.h - the DT_NEEDED names of a native 64-bit ELF file, and
 * whether one of them is a sanitizer runtime that serves malloc itself and
 * must come before any preloaded library.  Shared by the launcher's check
 * of the program it starts (cli/elf_check.c) and the recorder's check of
 * the programs a recorded one executes or spawns (preload/exec_reach.c),
 * so the two agree.
 *
 * Header-only; never allocates (the recorder's check runs in vfork
 * children, whose memory is their parent's): the program headers and the
 * dynamic section are read 16 entries at a time into the caller's stack
 * (about 1.4 KiB; 7-9 reads for a usual program), through a read function the caller gives (the
 * recorder's makes no cancellation point).
 */
#ifndef MPROF_TRACE_ELF_NEEDED_H
#define MPROF_TRACE_ELF_NEEDED_H

#include <elf.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Reads exactly size bytes of the file fd at offset off into buf: 0, or -1
 * when it cannot (an error or a short read). */
typedef int (*elf_needed_read_fn)(int fd, void *buf, size_t size, uint64_t off);

/* Called with each DT_NEEDED name (NUL-terminated, cut to
 * ELF_NEEDED_NAME_MAX - 1 bytes) and the caller's arg; nonzero stops the
 * walk, and elf_needed_walk returns it. */
typedef int (*elf_needed_visit_fn)(const char *name, void *arg);

#define ELF_NEEDED_NAME_MAX 256
#define ELF_NEEDED_PHDR_LIMIT 4096 /* more program headers than any real executable */
#define ELF_NEEDED_DYN_LIMIT 4096  /* dynamic entries read at most */
#define ELF_NEEDED_BATCH 16	   /* entries read at a time (a program has about 13 headers) */

/* The file's byte order is ours (only native files are parsed). */
static inline int elf_needed_native(const unsigned char *ident)
{
	const uint16_t one = 1;

	return ident[EI_DATA] == (*(const unsigned char *)&one == 1 ? ELFDATA2LSB : ELFDATA2MSB);
}

/* The first program header of type type, into *out: 0, or -1 when there
 * is none or the headers cannot be read. */
static inline int elf_needed_phdr(int fd, elf_needed_read_fn read, const Elf64_Ehdr *eh,
				  uint32_t type, Elf64_Phdr *out)
{
	Elf64_Phdr ph[ELF_NEEDED_BATCH];

	for (unsigned i = 0; i < eh->e_phnum; i += ELF_NEEDED_BATCH) {
		unsigned n = eh->e_phnum - i < ELF_NEEDED_BATCH ? eh->e_phnum - i : ELF_NEEDED_BATCH;

		if (read(fd, ph, n * sizeof(ph[0]), eh->e_phoff + (uint64_t)i * sizeof(ph[0])) < 0)
			return -1;
		for (unsigned k = 0; k < n; k++)
			if (ph[k].p_type == type) {
				*out = ph[k];
				return 0;
			}
	}
	return -1;
}

/* The file offset of the bytes [vaddr, vaddr + size) by the PT_LOAD
 * segment whose file part holds them all, or UINT64_MAX. */
static inline uint64_t elf_needed_offset(int fd, elf_needed_read_fn read, const Elf64_Ehdr *eh,
					 uint64_t vaddr, uint64_t size)
{
	Elf64_Phdr ph[ELF_NEEDED_BATCH];

	for (unsigned i = 0; i < eh->e_phnum; i += ELF_NEEDED_BATCH) {
		unsigned n = eh->e_phnum - i < ELF_NEEDED_BATCH ? eh->e_phnum - i : ELF_NEEDED_BATCH;

		if (read(fd, ph, n * sizeof(ph[0]), eh->e_phoff + (uint64_t)i * sizeof(ph[0])) < 0)
			return UINT64_MAX;
		for (unsigned k = 0; k < n; k++)
			if (ph[k].p_type == PT_LOAD && vaddr >= ph[k].p_vaddr &&
			    vaddr - ph[k].p_vaddr <= ph[k].p_filesz &&
			    size <= ph[k].p_filesz - (vaddr - ph[k].p_vaddr))
				return vaddr - ph[k].p_vaddr + ph[k].p_offset;
	}
	return UINT64_MAX;
}

/*
 * Calls visit with each DT_NEEDED name of the native 64-bit ELF file open
 * as fd, in order, until it returns nonzero.  The dynamic section is found
 * by its PT_DYNAMIC program header; the string table (DT_STRTAB, DT_STRSZ),
 * an address, is mapped to a file offset through the PT_LOAD segments, as
 * the loader maps it.  Returns what visit returned last (0 when it always
 * returned 0), or -1 when fd holds no such file or its dynamic section
 * cannot be read (a static executable has none).
 */
static inline int elf_needed_walk(int fd, elf_needed_read_fn read, elf_needed_visit_fn visit,
				  void *arg)
{
	Elf64_Ehdr eh;
	Elf64_Phdr dynamic;
	Elf64_Dyn dyn[ELF_NEEDED_BATCH];
	uint64_t strtab = UINT64_MAX, strsz = 0, count, strtab_off = 0;

	if (read(fd, &eh, sizeof(eh), 0) < 0 || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || !elf_needed_native(eh.e_ident) ||
	    eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum == 0 ||
	    eh.e_phnum > ELF_NEEDED_PHDR_LIMIT)
		return -1;
	if (elf_needed_phdr(fd, read, &eh, PT_DYNAMIC, &dynamic) < 0)
		return -1;
	count = dynamic.p_filesz / sizeof(Elf64_Dyn);
	count = count < ELF_NEEDED_DYN_LIMIT ? count : ELF_NEEDED_DYN_LIMIT;
	/* two passes: DT_STRTAB may come after the DT_NEEDED entries */
	for (int pass = 0; pass < 2; pass++) {
		if (pass == 1) {
			if (strtab == UINT64_MAX || strsz == 0)
				return -1;
			strtab_off = elf_needed_offset(fd, read, &eh, strtab, strsz);
			if (strtab_off == UINT64_MAX)
				return -1;
		}
		int end = 0;

		for (uint64_t i = 0; i < count && !end; i += ELF_NEEDED_BATCH) {
			uint64_t n = count - i < ELF_NEEDED_BATCH ? count - i : ELF_NEEDED_BATCH;

			if (read(fd, dyn, n * sizeof(dyn[0]), dynamic.p_offset + i * sizeof(dyn[0])) < 0)
				return -1;
			for (uint64_t k = 0; k < n; k++) {
				char name[ELF_NEEDED_NAME_MAX];
				uint64_t at = dyn[k].d_un.d_val, len;
				int stop;

				if (dyn[k].d_tag == DT_NULL) {
					end = 1;
					break;
				}
				if (pass == 0 && dyn[k].d_tag == DT_STRTAB)
					strtab = dyn[k].d_un.d_ptr;
				if (pass == 0 && dyn[k].d_tag == DT_STRSZ)
					strsz = dyn[k].d_un.d_val;
				if (pass == 0 || dyn[k].d_tag != DT_NEEDED || at >= strsz)
					continue;
				len = strsz - at < sizeof(name) - 1 ? strsz - at : sizeof(name) - 1;
				if (read(fd, name, len, strtab_off + at) < 0)
					return -1;
				name[len] = '\0';
				stop = visit(name, arg);
				if (stop)
					return stop;
			}
		}
	}
	return 0;
}

/* A sanitizer whose runtime library serves malloc itself. */
struct elf_needed_sanitizer {
	const char *prefix; /* the runtime's soname up to its version */
	const char *name;   /* the sanitizer's, for a message */
};

/* GCC links these runtimes as DT_NEEDED libraries by default. */
static const struct elf_needed_sanitizer elf_needed_sanitizers[] = {
	{ "libasan.so", "AddressSanitizer" },
	{ "libhwasan.so", "HWAddressSanitizer" },
	{ "libtsan.so", "ThreadSanitizer" },
	{ "liblsan.so", "LeakSanitizer" },
};

/* What elf_needed_sanitizer looks for and finds. */
struct elf_needed_found {
	const struct elf_needed_sanitizer *sanitizer;
	char *soname; /* the caller's, of size bytes; NULL: not wanted */
	size_t size;
};

static inline int elf_needed_sanitizer_visit(const char *name, void *arg)
{
	struct elf_needed_found *found = arg;
	const size_t count = sizeof(elf_needed_sanitizers) / sizeof(elf_needed_sanitizers[0]);

	for (size_t k = 0; k < count; k++) {
		const char *prefix = elf_needed_sanitizers[k].prefix;

		if (strncmp(name, prefix, strlen(prefix)) != 0)
			continue;
		found->sanitizer = &elf_needed_sanitizers[k];
		if (found->soname && found->size) {
			size_t n = strnlen(name, found->size - 1);

			memcpy(found->soname, name, n);
			found->soname[n] = '\0';
		}
		return 1;
	}
	return 0;
}

/*
 * The name of the sanitizer ("AddressSanitizer", ...) whose runtime the
 * native 64-bit ELF file open as fd names among its DT_NEEDED libraries,
 * with that soname written into soname[0..size) (cut to fit; soname NULL:
 * not written); NULL when it names none or cannot be read.  Such a runtime
 * must be the first library loaded: AddressSanitizer ends the program when
 * a preloaded one comes before it ("ASan runtime does not come first in
 * initial library list"), ThreadSanitizer's crashes, and the others would
 * have their malloc replaced by the preloaded one's.  A runtime linked
 * into the executable (clang's default) is no DT_NEEDED library.
 */
static inline const char *elf_needed_sanitizer(int fd, elf_needed_read_fn read, char *soname,
					       size_t size)
{
	struct elf_needed_found found = { NULL, soname, size };

	if (elf_needed_walk(fd, read, elf_needed_sanitizer_visit, &found) != 1)
		return NULL;
	return found.sanitizer->name;
}

#endif
