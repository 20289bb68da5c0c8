/*
 * preload/exec_reach.c - whether the dynamic loader will load the recorder
 * into a program about to be executed.  A statically linked program has no
 * loader, and the loader ignores LD_PRELOAD in secure-execution mode (a
 * set-user-ID or set-group-ID file that changes the effective IDs, file
 * capabilities, a caller whose effective IDs are not its real ones); such a
 * program started by a vfork child or posix_spawn leaves no process file,
 * and nothing else would name it (preload/exec_watch.c counts it).  The
 * loader of a 32-bit program (or one for another machine) cannot load the
 * 64-bit recorder and says so on the program's stderr, so exec_watch.c
 * also takes the recorder out of such a program's LD_PRELOAD, and out of
 * that of a program built with a sanitizer whose runtime must be the first
 * library loaded (trace/elf_needed.h: AddressSanitizer would end it).
 *
 * Looks at the file only: stat, statvfs (a nosuid mount), and the ELF
 * header, program headers and dynamic section through a descriptor opened
 * and closed within the call, and its file capabilities (trace/file_caps.h)
 * with our own capability sets, by system calls.  Under a seccomp filter
 * it makes only the calls an exec's loader makes too (stat, open, pread):
 * no statfs, getxattr, capget or prctl, which an allow-list sandbox may
 * kill the process for.  Never allocates: it runs in vfork children, whose
 * memory is their parent's.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <linux/capability.h>
#include <linux/prctl.h>

#include "preload/exec_reach.h"
#include "preload/seccomp_watch.h"
#include "preload/sys.h"
#include "trace/elf_needed.h"
#include "trace/file_caps.h"

static int pread_exact(int fd, void *buf, size_t n, uint64_t off)
{
	return syscall(SYS_pread64, fd, buf, n, (off_t)off) == (long)n ? 0 : -1;
}

#if defined(__x86_64__)
#define OWN_MACHINE EM_X86_64
#elif defined(__aarch64__)
#define OWN_MACHINE EM_AARCH64
#else
#define OWN_MACHINE 0 /* the class and byte order alone tell */
#endif

/* Whether the ELF header eh, read from a file, is of another class, byte
 * order or machine than the recorder's (a 32-bit program): its loader, if
 * any, cannot load the recorder and prints an error of its own when
 * LD_PRELOAD names it.  Not an ELF file: 0. */
static int elf_foreign(const Elf64_Ehdr *eh)
{
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0)
		return 0;
	if (eh->e_ident[EI_CLASS] != ELFCLASS64 || !elf_needed_native(eh->e_ident))
		return 1;
	return OWN_MACHINE != 0 && eh->e_machine != OWN_MACHINE;
}

/* Whether the native executable whose header eh and first program headers
 * first[] were read has no PT_INTERP (a static program; the rest of its
 * program headers are read from fd). */
static int elf_static(int fd, const Elf64_Ehdr *eh, const Elf64_Phdr *first)
{
	Elf64_Phdr buf[ELF_NEEDED_BATCH];

	for (unsigned i = 0, n; i < eh->e_phnum; i += ELF_NEEDED_BATCH) {
		const Elf64_Phdr *ph = elf_needed_phdrs(fd, pread_exact, eh, first, i, buf, &n);

		if (!ph)
			return 0;
		for (unsigned k = 0; k < n; k++)
			if (ph[k].p_type == PT_INTERP)
				return 0;
	}
	return 1;
}

/* Our bounding capability set: one prctl per capability the kernel knows
 * (about 41; it refuses the first one past its last). */
static uint64_t caps_bounding(void)
{
	uint64_t set = 0;

	for (unsigned cap = 0; cap < 64; cap++) {
		long held = syscall(SYS_prctl, PR_CAPBSET_READ, (unsigned long)cap, 0UL, 0UL, 0UL);

		if (held < 0)
			break;
		if (held)
			set |= UINT64_C(1) << cap;
	}
	return set;
}

/* Whether the file capabilities of path put it in secure-execution mode. */
static int file_caps_secure(const char *path)
{
	uint8_t raw[24];
	struct __user_cap_header_struct head = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2] = { { 0, 0, 0 }, { 0, 0, 0 } };
	long n = syscall(SYS_getxattr, path, "security.capability", raw, sizeof(raw));
	uint64_t inheritable;

	if (n < 12)
		return 0;
	if (syscall(SYS_capget, &head, data) != 0)
		memset(data, 0, sizeof(data));
	inheritable = (uint64_t)data[0].inheritable | (uint64_t)data[1].inheritable << 32;
	return file_caps_secure_exec(raw, n, getuid() == 0, inheritable, caps_bounding());
}

/* Whether path is on a file system mounted nosuid, where the kernel
 * ignores the set-ID bits and file capabilities. */
static int mount_nosuid(const char *path)
{
	struct statvfs vfs;

	return statvfs(path, &vfs) == 0 && (vfs.f_flag & ST_NOSUID);
}

/*
 * Whether executing path runs in secure-execution mode: by its set-ID bits
 * and our IDs, or by its file capabilities (trace/file_caps.h).  The mount
 * is looked at only when a set-ID bit or a capability could count.  Under
 * a seccomp filter neither the mount nor the capabilities are looked at
 * (a set-ID bit counts, a capability does not: the recorder's entry is
 * then kept, and the loader skips it silently).
 */
static int file_secure_exec(const char *path, const struct stat *st)
{
	const struct file_exec_ids ids = { getuid(), geteuid(), getgid(), getegid() };
	int filtered = seccomp_watch_filtered();
	int nosuid = (st->st_mode & (S_ISUID | S_ISGID)) && !filtered && mount_nosuid(path);

	if (file_setid_secure_exec(st->st_mode, st->st_uid, st->st_gid, nosuid, &ids))
		return 1;
	return !filtered && file_caps_secure(path) && !mount_nosuid(path);
}

int exec_reach_ids_mixed(void)
{
	return geteuid() != getuid() || getegid() != getgid();
}

static int file_unreachable(const char *path)
{
	struct stat st;
	Elf64_Ehdr eh;
	Elf64_Phdr first[ELF_NEEDED_BATCH];
	int fd, unreachable;

	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return EXEC_REACH_YES;
	if (file_secure_exec(path, &st))
		return EXEC_REACH_NOT;
	fd = sys_open(path, O_RDONLY | O_CLOEXEC, 0);
	if (fd < 0)
		return EXEC_REACH_YES;
	/* a file shorter than an ELF header is no ELF file: zeros say so */
	if (syscall(SYS_pread64, fd, &eh, sizeof(eh), (off_t)0) < (long)sizeof(eh))
		memset(&eh, 0, sizeof(eh));
	/* the header and the first program headers are read once, for the
	 * static check and the sanitizer walk both */
	if (elf_foreign(&eh))
		unreachable = EXEC_REACH_FOREIGN;
	else if (memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
		 (eh.e_type != ET_EXEC && eh.e_type != ET_DYN) ||
		 eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum == 0 ||
		 eh.e_phnum > ELF_NEEDED_PHDR_LIMIT ||
		 pread_exact(fd, first,
			     (eh.e_phnum < ELF_NEEDED_BATCH ? eh.e_phnum : ELF_NEEDED_BATCH) *
				     sizeof(first[0]),
			     eh.e_phoff) < 0)
		unreachable = EXEC_REACH_YES; /* the exec fails or the loader says why */
	else if (elf_static(fd, &eh, first))
		unreachable = EXEC_REACH_NOT;
	else if (elf_needed_sanitizer_from(fd, pread_exact, &eh, first))
		unreachable = EXEC_REACH_SANITIZER;
	else
		unreachable = EXEC_REACH_YES;
	sys_close(fd);
	return unreachable;
}

int exec_reach_unreachable(const char *file, int search)
{
	const char *dirs = getenv("PATH");
	size_t len = strlen(file);

	if (!search || strchr(file, '/'))
		return file_unreachable(file);
	if (!dirs)
		dirs = "/bin:/usr/bin"; /* execvp's default */
	while (*dirs) {
		size_t n = strcspn(dirs, ":");

		/* an empty entry is the working directory; the candidate's
		 * buffer is its own size, not PATH_MAX: a thread's stack may
		 * be 16 KiB */
		if (n + 1 + len < PATH_MAX) {
			char path[(n ? n : 1) + 1 + len + 1];

			memcpy(path, n ? dirs : ".", n ? n : 1);
			path[n ? n : 1] = '/';
			memcpy(path + (n ? n : 1) + 1, file, len + 1);
			if (access(path, X_OK) == 0)
				return file_unreachable(path);
		}
		dirs += n + (dirs[n] == ':');
	}
	return EXEC_REACH_YES;
}
