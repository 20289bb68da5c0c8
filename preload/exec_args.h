/*
 * preload/exec_args.h - copies of what an exec or posix_spawn call hands
 * the kernel that the exec wrappers look at (the path, argv[0], envp's
 * LD_PRELOAD and MPROF_SESSION entries and its slots), made through
 * process_vm_readv into the recorder's buffers (preload/exec_args.c): an
 * address the kernel would refuse with EFAULT, or a page another thread
 * unmaps during the call, reads as an error, never as a fault in the shim.
 */
#ifndef MPROF_PRELOAD_EXEC_ARGS_H
#define MPROF_PRELOAD_EXEC_ARGS_H

#include <limits.h>
#include <stddef.h>

#include "trace/session.h"

/* The most of the LD_PRELOAD entry copied (a longer one is cut, and ends
 * with ":" EXEC_ARGS_SHIM when its rest names the recorder); it lives on
 * the stack of the thread that calls exec, which may be 16 KiB. */
#define EXEC_ARGS_PRELOAD_BYTES 2048

/* The recorder's library's name, as LD_PRELOAD names it. */
#define EXEC_ARGS_SHIM "libmprof_preload"

/* How one wrapper call reads: through process_vm_readv, or directly under
 * a seccomp filter (which may kill the process for a call it does not
 * expect) or where process_vm_readv itself is refused (ENOSYS, EPERM). */
struct exec_args_reader {
	int pid;
	int direct;
};

/* What the wrappers know of an envp: a copy of its last LD_PRELOAD entry
 * (the one the loader uses; cut to fit), whether its first MPROF_SESSION
 * entry (the one getenv gives the recorder) names the session asked about
 * (compared in place, not copied), its number of entries and where that
 * LD_PRELOAD entry was. */
struct exec_args_env {
	char preload[EXEC_ARGS_PRELOAD_BYTES];
	int session_same;
	size_t count;
	size_t preload_at; /* SIZE_MAX: none */
	int preload_cut;   /* the entry was longer than preload (its copy then
			    * ends with ":" EXEC_ARGS_SHIM when the rest has it) */
	size_t preload_entries; /* LD_PRELOAD entries in envp */
};

void exec_args_reader_init(struct exec_args_reader *r, int direct);

/* Copies the string at src into dst[size]: 0, 1 when cut to fit (dst is
 * then NUL-terminated), -1 when it cannot be read.  Changes errno. */
int exec_args_str(struct exec_args_reader *r, char *dst, size_t size, const char *src);

/* Copies the path into path_dst[path_size] and fills env from envp (NULL:
 * empty), comparing its MPROF_SESSION entry's value with session: 0; 1
 * when the path has no NUL in path_size bytes (env is then not filled);
 * or -1 when the path is unreadable, or a slot of envp or a piece holding
 * an entry it looks at cannot be read.  The path's first page and envp's
 * first 64 slots take one process_vm_readv call, each further 64 slots
 * one, and each 1 KiB piece of the entries one (read whole: entries
 * usually lie one after another); every entry's head is looked at, as a
 * later LD_PRELOAD is the one used.  Changes errno. */
int exec_args_read(struct exec_args_reader *r, char *path_dst, size_t path_size,
		   const char *path, struct exec_args_env *env, char *const envp[],
		   const char *session);

/* Copies envp's first count slots into dst: 0, or -1.  Changes errno. */
int exec_args_slots(struct exec_args_reader *r, char **dst, char *const envp[], size_t count);

#endif
