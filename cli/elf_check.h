/*
 * cli/elf_check.h - can LD_PRELOAD reach this program at all?
 */
#ifndef MPROF_CLI_ELF_CHECK_H
#define MPROF_CLI_ELF_CHECK_H

#include <stdbool.h>
#include <stddef.h>

enum elf_link {
	ELF_LINK_OTHER = 0,  /* not ELF (a #! script, ...) or unreadable: run normally */
	ELF_LINK_DYNAMIC,    /* ELF with a PT_INTERP: the loader honours LD_PRELOAD */
	ELF_LINK_STATIC,     /* ELF without PT_INTERP: no loader, no preload */
	ELF_LINK_FOREIGN,    /* ELF of another class or machine than ours (a 32-bit
				program): its loader cannot load our recorder */
};

/* Reads path's ELF header and program headers (plain reads, no libelf). */
enum elf_link elf_check_link(const char *path);

/* What a foreign ELF file (ELF_LINK_FOREIGN) is, for a message: "a 32-bit
 * program", "a 64-bit program" or "a program for another machine"; NULL
 * when path is not one. */
const char *elf_check_foreign_kind(const char *path);

/*
 * When the native ELF program at path names a sanitizer runtime that serves
 * malloc itself among its DT_NEEDED libraries (libasan.so..., libhwasan,
 * libtsan, liblsan: GCC links them so by default), writes that soname into
 * soname[0..size) and returns the sanitizer's name ("AddressSanitizer",
 * ...).  Returns NULL for any other file, or one that cannot be read.
 * AddressSanitizer refuses to run when a preloaded library comes before its
 * runtime ("ASan runtime does not come first in initial library list"),
 * and the others would have their malloc replaced by the recorder's.
 */
const char *elf_check_sanitizer(const char *path, char *soname, size_t size);

/* Whether path begins with the ELF magic (a file execve refuses with
 * ENOEXEC is then no shell script). */
bool elf_check_is_elf(const char *path);

/*
 * Writes into out[0..size) the interpreter the file at path names for the
 * kernel: a native ELF program's PT_INTERP (its dynamic loader) or the first
 * word of a script's "#!" line, cut to size - 1 bytes.  Returns 0, or -1
 * when the file names none (a static program, a text without "#!") or
 * cannot be read.  An exec that fails with ENOENT on a file that exists
 * failed on this file.
 */
int elf_check_interpreter(const char *path, char *out, size_t size);

/*
 * Returns why the loader will run path in secure-execution mode (and ignore
 * LD_PRELOAD) when this process executes it, by the kernel's rule (an
 * effective ID after the exec that is not the real one, or capabilities
 * the file raises): "set-user-ID", "set-group-ID", "with an effective user
 * or group ID that is not its real one (...)" (this process's IDs are
 * mixed), "with file capabilities", or NULL when it will not.
 */
const char *elf_check_secure_exec(const char *path);

#endif
