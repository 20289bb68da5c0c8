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

/* The most of the LD_PRELOAD entry copied (a longer one is cut). */
#define EXEC_ARGS_PRELOAD_BYTES 4096

/* How one wrapper call reads: through process_vm_readv, or directly under
 * a seccomp filter (which may kill the process for a call it does not
 * expect) or where process_vm_readv itself is refused (ENOSYS, EPERM). */
struct exec_args_reader {
	int pid;
	int direct;
};

/* What the wrappers know of an envp: copies of its first LD_PRELOAD and
 * MPROF_SESSION entries (each cut to fit its buffer), as an environment of
 * their own (picked, null-terminated), its number of entries and where the
 * LD_PRELOAD entry was. */
struct exec_args_env {
	char preload[EXEC_ARGS_PRELOAD_BYTES];
	char session[sizeof(SESSION_ENV "=") + PATH_MAX];
	char *picked[3];
	size_t count;
	size_t preload_at; /* SIZE_MAX: none */
	int preload_cut;   /* the entry was longer than preload */
};

void exec_args_reader_init(struct exec_args_reader *r, int direct);

/* Copies the string at src into dst[size]: 0, 1 when cut to fit (dst is
 * then NUL-terminated), -1 when it cannot be read.  Changes errno. */
int exec_args_str(struct exec_args_reader *r, char *dst, size_t size, const char *src);

/* Copies the path into path_dst[path_size] and fills env from envp (NULL:
 * empty): 0, or -1 when the path is unreadable or has no NUL in path_size
 * bytes, or a slot of envp or a page holding an entry it looks at cannot
 * be read.  The path's first page and envp's first 64 slots take one
 * process_vm_readv call, each further 64 slots one, and each page of the
 * entries one (read whole: entries usually lie one after another); entries
 * after the first LD_PRELOAD and MPROF_SESSION ones are only counted.
 * Changes errno. */
int exec_args_read(struct exec_args_reader *r, char *path_dst, size_t path_size,
		   const char *path, struct exec_args_env *env, char *const envp[]);

/* Copies envp's first count slots into dst: 0, or -1.  Changes errno. */
int exec_args_slots(struct exec_args_reader *r, char **dst, char *const envp[], size_t count);

#endif
