/*
 * cli/elf_check.c - decides, before the program starts, whether the preload
 * shim can reach it: a static executable has no dynamic loader, and the
 * loader ignores LD_PRELOAD in secure-execution mode (set-user-ID,
 * set-group-ID or file capabilities that change our privileges).  Also
 * names the interpreter a file asks the kernel for (its dynamic loader or
 * "#!" line), for the message when that is missing.
 *
 * Reads the ELF file header, program headers and (for a sanitizer's
 * runtime, through trace/elf_needed.h) the dynamic section with pread;
 * owns no memory beyond the call.  Never prints or exits: unreadable or unusual
 * files are reported as "other" so the program simply runs.
 */
#include "config.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "cli/elf_check.h"
#include "trace/elf_needed.h"
#include "trace/file_caps.h"

#define PHDR_LIMIT 4096 /* more program headers than any real executable */

static int read_exact(int fd, void *buf, size_t n, off_t off)
{
	ssize_t r = pread(fd, buf, n, off);

	return r == (ssize_t)n ? 0 : -1;
}

/*
 * The PT_INTERP program header (the dynamic loader's path) of the ELF file
 * on fd, of class cls (ELFCLASS64 or ELFCLASS32): 1 with its file offset
 * and size in *offset and *filesz, 0 when it has none (a static
 * executable), -1 when the file is no executable or its headers cannot be
 * read.  The first PT_INTERP counts, as for the kernel.
 */
static int interp_find(int fd, int cls, uint64_t *offset, uint64_t *filesz)
{
	uint64_t phoff;
	unsigned type, phnum, phentsize;

	if (cls == ELFCLASS64) {
		Elf64_Ehdr eh;

		if (read_exact(fd, &eh, sizeof(eh), 0) < 0)
			return -1;
		type = eh.e_type, phoff = eh.e_phoff, phnum = eh.e_phnum, phentsize = eh.e_phentsize;
	} else {
		Elf32_Ehdr eh;

		if (read_exact(fd, &eh, sizeof(eh), 0) < 0)
			return -1;
		type = eh.e_type, phoff = eh.e_phoff, phnum = eh.e_phnum, phentsize = eh.e_phentsize;
	}
	if ((type != ET_EXEC && type != ET_DYN) ||
	    phentsize != (cls == ELFCLASS64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr)) ||
	    phnum == 0 || phnum > PHDR_LIMIT)
		return -1;
	for (unsigned i = 0; i < phnum; i++) {
		off_t at = (off_t)(phoff + (uint64_t)i * phentsize);

		if (cls == ELFCLASS64) {
			Elf64_Phdr ph;

			if (read_exact(fd, &ph, sizeof(ph), at) < 0)
				return -1;
			if (ph.p_type == PT_INTERP) {
				*offset = ph.p_offset, *filesz = ph.p_filesz;
				return 1;
			}
		} else {
			Elf32_Phdr ph;

			if (read_exact(fd, &ph, sizeof(ph), at) < 0)
				return -1;
			if (ph.p_type == PT_INTERP) {
				*offset = ph.p_offset, *filesz = ph.p_filesz;
				return 1;
			}
		}
	}
	return 0;
}

static enum elf_link link_scan(int fd, int cls)
{
	uint64_t offset, filesz;

	switch (interp_find(fd, cls, &offset, &filesz)) {
	case 1:
		return ELF_LINK_DYNAMIC;
	case 0:
		return ELF_LINK_STATIC;
	default:
		return ELF_LINK_OTHER;
	}
}

/* Our own class and machine: the recorder's, which only a loader of the
 * same can load (machine 0: unknown here, not compared). */
#if defined(__x86_64__)
#define ELF_OWN_MACHINE EM_X86_64
#elif defined(__aarch64__)
#define ELF_OWN_MACHINE EM_AARCH64
#elif defined(__i386__)
#define ELF_OWN_MACHINE EM_386
#else
#define ELF_OWN_MACHINE 0
#endif
#define ELF_OWN_CLASS (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32)

/* Reads the identification bytes and e_machine of fd's ELF header:
 * 0, or -1 when it is no native-endian ELF file. */
static int elf_ident_read(int fd, unsigned char *ident, uint16_t *machine)
{
	if (read_exact(fd, ident, EI_NIDENT, 0) < 0 || memcmp(ident, ELFMAG, SELFMAG) != 0 ||
	    !elf_needed_native(ident))
		return -1;
	/* e_type then e_machine follow e_ident in both classes */
	return read_exact(fd, machine, sizeof(*machine), EI_NIDENT + 2);
}

static bool elf_foreign(const unsigned char *ident, uint16_t machine)
{
	return ident[EI_CLASS] != ELF_OWN_CLASS ||
	       (ELF_OWN_MACHINE != 0 && machine != ELF_OWN_MACHINE);
}

enum elf_link elf_check_link(const char *path)
{
	unsigned char ident[EI_NIDENT];
	uint16_t machine;
	enum elf_link link = ELF_LINK_OTHER;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return ELF_LINK_OTHER;
	if (elf_ident_read(fd, ident, &machine) == 0) {
		if (ident[EI_CLASS] == ELFCLASS64 || ident[EI_CLASS] == ELFCLASS32)
			link = link_scan(fd, ident[EI_CLASS]);
		/* a static one has no loader to complain: it stays static */
		if (link == ELF_LINK_DYNAMIC && elf_foreign(ident, machine))
			link = ELF_LINK_FOREIGN;
	}
	close(fd);
	return link;
}

/* read_exact for trace/elf_needed.h. */
static int needed_read(int fd, void *buf, size_t size, uint64_t off)
{
	return off > INT64_MAX ? -1 : read_exact(fd, buf, size, (off_t)off);
}

const char *elf_check_sanitizer(const char *path, char *soname, size_t size)
{
	unsigned char ident[EI_NIDENT];
	uint16_t machine;
	const char *found = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	/* a native program only: a foreign one never gets the recorder */
	if (elf_ident_read(fd, ident, &machine) == 0 && !elf_foreign(ident, machine) &&
	    ident[EI_CLASS] == ELFCLASS64)
		found = elf_needed_sanitizer(fd, needed_read, soname, size);
	close(fd);
	return found;
}

const char *elf_check_foreign_kind(const char *path)
{
	unsigned char ident[EI_NIDENT];
	uint16_t machine;
	const char *kind = NULL;
	int fd;

	if (elf_check_link(path) != ELF_LINK_FOREIGN)
		return NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (elf_ident_read(fd, ident, &machine) == 0)
		kind = ident[EI_CLASS] == ELF_OWN_CLASS ? "a program for another machine"
		       : ident[EI_CLASS] == ELFCLASS32	 ? "a 32-bit program"
							 : "a 64-bit program";
	close(fd);
	return kind;
}

bool elf_check_is_elf(const char *path)
{
	unsigned char magic[SELFMAG];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool elf;

	if (fd < 0)
		return false;
	elf = read_exact(fd, magic, sizeof(magic), 0) == 0 && memcmp(magic, ELFMAG, SELFMAG) == 0;
	close(fd);
	return elf;
}

/* Copies the PT_INTERP path of the ELF file on fd, of class cls, into
 * out[0..size): 0, or -1 when it names none (static, unreadable). */
static int interp_scan(int fd, int cls, char *out, size_t size)
{
	uint64_t offset, filesz;

	if (interp_find(fd, cls, &offset, &filesz) != 1 || !filesz || offset > INT64_MAX)
		return -1;
	if (filesz > size - 1)
		filesz = size - 1;
	if (read_exact(fd, out, filesz, (off_t)offset) < 0)
		return -1;
	out[filesz] = '\0';
	return out[0] ? 0 : -1;
}

/* Copies the first word of a "#!" line in buf[0..n) into out[0..size):
 * 0, or -1 when there is none. */
static int shebang_scan(const char *buf, size_t n, char *out, size_t size)
{
	size_t at = 2, len = 0;

	if (n < 2 || buf[0] != '#' || buf[1] != '!')
		return -1;
	while (at < n && (buf[at] == ' ' || buf[at] == '\t'))
		at++;
	while (at + len < n && !strchr(" \t\n", buf[at + len]) && len < size - 1)
		len++;
	memcpy(out, buf + at, len);
	out[len] = '\0';
	return len ? 0 : -1;
}

int elf_check_interpreter(const char *path, char *out, size_t size)
{
	char head[256];
	ssize_t n;
	int rc = -1;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || size < 2) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	n = pread(fd, head, sizeof(head), 0);
	if (n >= SELFMAG && memcmp(head, ELFMAG, SELFMAG) == 0 && n > EI_DATA &&
	    (head[EI_CLASS] == ELFCLASS64 || head[EI_CLASS] == ELFCLASS32) &&
	    elf_needed_native((const unsigned char *)head))
		rc = interp_scan(fd, head[EI_CLASS], out, size);
	else if (n > 0)
		rc = shebang_scan(head, (size_t)n, out, size);
	close(fd);
	return rc;
}

/* Our inheritable and bounding capability sets, from /proc/self/status
 * (both empty when unreadable: then only a file's effective bit counts). */
static void caps_self(uint64_t *inheritable, uint64_t *bounding)
{
	char line[256];
	FILE *f = fopen("/proc/self/status", "re");

	*inheritable = *bounding = 0;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "CapInh:", 7) == 0)
			*inheritable = strtoull(line + 7, NULL, 16);
		else if (strncmp(line, "CapBnd:", 7) == 0)
			*bounding = strtoull(line + 7, NULL, 16);
	}
	fclose(f);
}

/* Whether executing path runs in secure-execution mode on account of its
 * file capabilities (trace/file_caps.h). */
static bool file_caps_raise(const char *path)
{
	uint8_t raw[24];
	ssize_t n = getxattr(path, "security.capability", raw, sizeof(raw));
	uint64_t inheritable, bounding;

	if (n < 12)
		return false;
	caps_self(&inheritable, &bounding);
	return file_caps_secure_exec(raw, (long)n, getuid() == 0, inheritable, bounding);
}

const char *elf_check_secure_exec(const char *path)
{
	struct stat st;
	struct statvfs vfs;
	const struct file_exec_ids ids = { getuid(), geteuid(), getgid(), getegid() };
	bool nosuid;

	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return NULL;
	/* On a nosuid mount the kernel ignores both bits and capabilities. */
	nosuid = statvfs(path, &vfs) == 0 && (vfs.f_flag & ST_NOSUID);
	switch (file_setid_secure_exec(st.st_mode, st.st_uid, st.st_gid, nosuid, &ids)) {
	case FILE_SETID_USER:
		return "set-user-ID";
	case FILE_SETID_GROUP:
		return "set-group-ID";
	case FILE_SETID_MIXED_IDS:
		return "with an effective user or group ID that is not its real one (as mprof "
		       "was started)";
	case FILE_SETID_NONE:
		break;
	}
	if (!nosuid && file_caps_raise(path))
		return "with file capabilities";
	return NULL;
}
