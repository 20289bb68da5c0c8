/*
 * preload/exec_reach.h - whether the recorder can start in a program about
 * to be executed (see exec_reach.c).
 */
#ifndef MPROF_PRELOAD_EXEC_REACH_H
#define MPROF_PRELOAD_EXEC_REACH_H

/* What exec_reach_unreachable finds. */
enum {
	EXEC_REACH_YES = 0,	/* the loader will load the recorder, or cannot tell */
	EXEC_REACH_NOT = 1,	/* static or secure-execution: LD_PRELOAD is ignored */
	EXEC_REACH_FOREIGN = 2, /* another class or machine: its loader would print
				 * an error of its own for the recorder's entry */
	EXEC_REACH_SANITIZER = 3, /* its DT_NEEDED names a sanitizer runtime that must
				   * come before any preloaded library (libasan...) */
	EXEC_REACH_ABSENT = 4, /* the recorder's file, as LD_PRELOAD names it, cannot be
				* found from the caller (a chroot without it): the
				* loader would print an error of its own */
};

/* Whether a program exec_reach_unreachable said reach of must get an
 * LD_PRELOAD without the recorder's entry. */
static inline int exec_reach_drops_recorder(int reach)
{
	return reach == EXEC_REACH_FOREIGN || reach == EXEC_REACH_SANITIZER ||
	       reach == EXEC_REACH_ABSENT;
}

/*
 * EXEC_REACH_NOT when the dynamic loader will not load the recorder into
 * the program file names (as an exec call names it; searched in $PATH, as execvp does,
 * when search is set and file has no '/'): it is statically linked, or runs
 * set-user-ID, set-group-ID or with file capabilities that put it in
 * secure-execution mode (trace/file_caps.h), or the caller's IDs are mixed
 * (exec_reach_ids_mixed); EXEC_REACH_FOREIGN when it is an ELF file of
 * another class or machine than the recorder's (a 32-bit program: checked
 * after secure-execution mode, in which the loader skips the recorder's
 * entry silently); EXEC_REACH_SANITIZER when it is a dynamically linked
 * native one whose DT_NEEDED libraries name a sanitizer runtime that
 * serves malloc (trace/elf_needed.h); EXEC_REACH_YES otherwise, and when
 * the file cannot be found or read (the exec will fail or tell).  Never allocates; opens and
 * closes one descriptor (O_CLOEXEC) within the call.
 */
int exec_reach_unreachable(const char *file, int search);

/* 1 when the calling process's effective user or group ID is not its real
 * one: the kernel then runs whatever it executes in secure-execution mode,
 * as after seteuid() in a process of root's; 0 otherwise. */
int exec_reach_ids_mixed(void);

#endif
