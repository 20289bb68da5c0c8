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
 * (about 2.5 KiB; 4-5 reads for a usual program, and one a name), through
 * a read function the caller gives (the recorder's makes no cancellation
 * point).  A caller that has read the file and first program headers for
 * its own checks hands them to the *_from entries, which do not read them
 * again.
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

/* Program headers i to i + ELF_NEEDED_BATCH: first (the first batch, read
 * by the caller) or read into buf; *n: how many.  NULL when they cannot be
 * read. */
static inline const Elf64_Phdr *elf_needed_phdrs(int fd, elf_needed_read_fn read,
						 const Elf64_Ehdr *eh, const Elf64_Phdr *first,
						 unsigned i, Elf64_Phdr *buf, unsigned *n)
{
	*n = eh->e_phnum - i < ELF_NEEDED_BATCH ? eh->e_phnum - i : ELF_NEEDED_BATCH;
	if (i == 0)
		return first;
	if (read(fd, buf, *n * sizeof(buf[0]), eh->e_phoff + (uint64_t)i * sizeof(buf[0])) < 0)
		return NULL;
	return buf;
}

/* The file offset of the bytes [vaddr, vaddr + size) by the PT_LOAD
 * segment whose file part holds them all, or UINT64_MAX. */
static inline uint64_t elf_needed_offset(int fd, elf_needed_read_fn read, const Elf64_Ehdr *eh,
					 const Elf64_Phdr *first, uint64_t vaddr, uint64_t size)
{
	Elf64_Phdr buf[ELF_NEEDED_BATCH];

	for (unsigned i = 0, n; i < eh->e_phnum; i += ELF_NEEDED_BATCH) {
		const Elf64_Phdr *ph = elf_needed_phdrs(fd, read, eh, first, i, buf, &n);

		for (unsigned k = 0; ph && k < n; k++)
			if (ph[k].p_type == PT_LOAD && vaddr >= ph[k].p_vaddr &&
			    vaddr - ph[k].p_vaddr <= ph[k].p_filesz &&
			    size <= ph[k].p_filesz - (vaddr - ph[k].p_vaddr))
				return vaddr - ph[k].p_vaddr + ph[k].p_offset;
		if (!ph)
			break;
	}
	return UINT64_MAX;
}

/* The PT_DYNAMIC program header into *out: 0, or -1 when there is none
 * (a static executable) or the headers cannot be read. */
static inline int elf_needed_dynamic(int fd, elf_needed_read_fn read, const Elf64_Ehdr *eh,
				     const Elf64_Phdr *first, Elf64_Phdr *out)
{
	Elf64_Phdr buf[ELF_NEEDED_BATCH];

	for (unsigned i = 0, n; i < eh->e_phnum; i += ELF_NEEDED_BATCH) {
		const Elf64_Phdr *ph = elf_needed_phdrs(fd, read, eh, first, i, buf, &n);

		if (!ph)
			return -1;
		for (unsigned k = 0; k < n; k++)
			if (ph[k].p_type == PT_DYNAMIC) {
				*out = ph[k];
				return 0;
			}
	}
	return -1;
}

/* The dynamic section as the walk reads it. */
struct elf_needed_dyn {
	uint64_t offset, count;			/* its place in the file, its entries */
	uint64_t strtab, strsz;			/* DT_STRTAB (an address), DT_STRSZ */
	uint64_t needed[ELF_NEEDED_BATCH];	/* the first DT_NEEDED names' offsets */
	unsigned needed_n;			/* how many of them */
	int needed_more;			/* 1: more DT_NEEDED entries follow */
};

/* Reads the dynamic section up to DT_NULL: the string table's place and
 * size, the first DT_NEEDED offsets (skip: as many of them ignored, for a
 * second reading), and whether more follow.  0, or -1 when it cannot be
 * read. */
static inline int elf_needed_dyn_read(int fd, elf_needed_read_fn read, struct elf_needed_dyn *d,
				      unsigned skip)
{
	Elf64_Dyn dyn[ELF_NEEDED_BATCH];
	unsigned seen = 0;

	d->needed_n = 0;
	d->needed_more = 0;
	for (uint64_t i = 0; i < d->count; i += ELF_NEEDED_BATCH) {
		uint64_t n = d->count - i < ELF_NEEDED_BATCH ? d->count - i : ELF_NEEDED_BATCH;

		if (read(fd, dyn, n * sizeof(dyn[0]), d->offset + i * sizeof(dyn[0])) < 0)
			return -1;
		for (uint64_t k = 0; k < n; k++) {
			if (dyn[k].d_tag == DT_NULL)
				return 0;
			if (dyn[k].d_tag == DT_STRTAB)
				d->strtab = dyn[k].d_un.d_ptr;
			else if (dyn[k].d_tag == DT_STRSZ)
				d->strsz = dyn[k].d_un.d_val;
			else if (dyn[k].d_tag != DT_NEEDED || seen++ < skip)
				continue;
			else if (d->needed_n < ELF_NEEDED_BATCH)
				d->needed[d->needed_n++] = dyn[k].d_un.d_val;
			else
				d->needed_more = 1;
		}
	}
	return 0;
}

/*
 * Reads the ELF header into *eh and the first ELF_NEEDED_BATCH program
 * headers into first[] of the file open as fd: 0, or -1 when fd holds no
 * native 64-bit ELF file with program headers (or they cannot be read).
 */
static inline int elf_needed_head(int fd, elf_needed_read_fn read, Elf64_Ehdr *eh,
				  Elf64_Phdr first[ELF_NEEDED_BATCH])
{
	if (read(fd, eh, sizeof(*eh), 0) < 0 || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || !elf_needed_native(eh->e_ident) ||
	    eh->e_phentsize != sizeof(Elf64_Phdr) || eh->e_phnum == 0 ||
	    eh->e_phnum > ELF_NEEDED_PHDR_LIMIT)
		return -1;
	return read(fd, first,
		    (eh->e_phnum < ELF_NEEDED_BATCH ? eh->e_phnum : ELF_NEEDED_BATCH) *
			    sizeof(first[0]),
		    eh->e_phoff);
}

/*
 * elf_needed_walk for a caller that has already read the file's header eh
 * and its first program headers first[] (elf_needed_head, or its own reads
 * with the same checks), so they are not read again.
 */
static inline int elf_needed_walk_from(int fd, elf_needed_read_fn read, const Elf64_Ehdr *eh,
				       const Elf64_Phdr *first, elf_needed_visit_fn visit,
				       void *arg)
{
	Elf64_Phdr dynamic;
	struct elf_needed_dyn d = { 0 };
	uint64_t strtab_off;
	unsigned done = 0;

	if (elf_needed_dynamic(fd, read, eh, first, &dynamic) < 0)
		return -1;
	d.offset = dynamic.p_offset;
	d.count = dynamic.p_filesz / sizeof(Elf64_Dyn);
	d.count = d.count < ELF_NEEDED_DYN_LIMIT ? d.count : ELF_NEEDED_DYN_LIMIT;
	d.strtab = UINT64_MAX;
	if (elf_needed_dyn_read(fd, read, &d, 0) < 0 || d.strtab == UINT64_MAX || d.strsz == 0)
		return -1;
	strtab_off = elf_needed_offset(fd, read, eh, first, d.strtab, d.strsz);
	if (strtab_off == UINT64_MAX)
		return -1;
	for (;;) {
		for (unsigned k = 0; k < d.needed_n; k++) {
			char name[ELF_NEEDED_NAME_MAX];
			uint64_t at = d.needed[k], len;
			int stop;

			if (at >= d.strsz)
				continue;
			len = d.strsz - at < sizeof(name) - 1 ? d.strsz - at : sizeof(name) - 1;
			if (read(fd, name, len, strtab_off + at) < 0)
				return -1;
			name[len] = '\0';
			stop = visit(name, arg);
			if (stop)
				return stop;
		}
		if (!d.needed_more)
			return 0;
		done += d.needed_n;
		if (elf_needed_dyn_read(fd, read, &d, done) < 0)
			return -1;
	}
}

/*
 * Calls visit with each DT_NEEDED name of the native 64-bit ELF file open
 * as fd, in order, until it returns nonzero.  The dynamic section is found
 * by its PT_DYNAMIC program header; the string table (DT_STRTAB, DT_STRSZ),
 * an address, is mapped to a file offset through the PT_LOAD segments, as
 * the loader maps it.  Reads the file header, the program headers and the
 * dynamic section once each (again for every ELF_NEEDED_BATCH names past
 * the first), and each name.  Returns what visit returned last (0 when it
 * always returned 0), or -1 when fd holds no such file or its dynamic
 * section cannot be read (a static executable has none).
 */
static inline int elf_needed_walk(int fd, elf_needed_read_fn read, elf_needed_visit_fn visit,
				  void *arg)
{
	Elf64_Ehdr eh;
	Elf64_Phdr first[ELF_NEEDED_BATCH];

	if (elf_needed_head(fd, read, &eh, first) < 0)
		return -1;
	return elf_needed_walk_from(fd, read, &eh, first, visit, arg);
}

/* A sanitizer whose runtime library serves malloc itself. */
struct elf_needed_sanitizer {
	const char *prefix; /* the runtime's soname up to its version */
	const char *name;   /* the sanitizer's, for a message */
};

/* GCC links these runtimes as DT_NEEDED libraries by default, clang with
 * -shared-libsan (libclang_rt.asan-x86_64.so, libclang_rt.asan.so). */
static const struct elf_needed_sanitizer elf_needed_sanitizers[] = {
	{ "libasan.so", "AddressSanitizer" },
	{ "libhwasan.so", "HWAddressSanitizer" },
	{ "libtsan.so", "ThreadSanitizer" },
	{ "liblsan.so", "LeakSanitizer" },
	{ "libclang_rt.asan", "AddressSanitizer" },
	{ "libclang_rt.hwasan", "HWAddressSanitizer" },
	{ "libclang_rt.tsan", "ThreadSanitizer" },
	{ "libclang_rt.lsan", "LeakSanitizer" },
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
 * into the executable (clang's default without -shared-libsan) is no
 * DT_NEEDED library.
 */
static inline const char *elf_needed_sanitizer(int fd, elf_needed_read_fn read, char *soname,
					       size_t size)
{
	struct elf_needed_found found = { NULL, soname, size };

	if (elf_needed_walk(fd, read, elf_needed_sanitizer_visit, &found) != 1)
		return NULL;
	return found.sanitizer->name;
}

/* elf_needed_sanitizer, soname not wanted, for a caller that has already
 * read the header eh and first program headers first[] (as
 * elf_needed_walk_from). */
static inline const char *elf_needed_sanitizer_from(int fd, elf_needed_read_fn read,
						    const Elf64_Ehdr *eh, const Elf64_Phdr *first)
{
	struct elf_needed_found found = { NULL, NULL, 0 };

	if (elf_needed_walk_from(fd, read, eh, first, elf_needed_sanitizer_visit, &found) != 1)
		return NULL;
	return found.sanitizer->name;
}

#endif
