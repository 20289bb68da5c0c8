/*
 * cli/elf_check.h - can LD_PRELOAD reach this program at all?
 */
#ifndef MPROF_CLI_ELF_CHECK_H
#define MPROF_CLI_ELF_CHECK_H

enum elf_link {
	ELF_LINK_OTHER = 0,  /* not ELF (a #! script, ...) or unreadable: run normally */
	ELF_LINK_DYNAMIC,    /* ELF with a PT_INTERP: the loader honours LD_PRELOAD */
	ELF_LINK_STATIC,     /* ELF without PT_INTERP: no loader, no preload */
};

/* Reads path's ELF header and program headers (plain reads, no libelf). */
enum elf_link elf_check_link(const char *path);

/*
 * Returns why the loader will run path in secure-execution mode (and ignore
 * LD_PRELOAD) when this process executes it: "set-user-ID", "set-group-ID",
 * "with file capabilities", or NULL when it will not.
 */
const char *elf_check_secure_exec(const char *path);

#endif
