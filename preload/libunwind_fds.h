/*
 * preload/libunwind_fds.h - libunwind holds no file descriptor: its
 * memory-validation pipe is replaced by a check that needs none, so it
 * never reads, writes or closes a descriptor of the program's, whatever
 * the program does with its numbers (libunwind_fds.c says why and how).
 */
#ifndef MPROF_PRELOAD_LIBUNWIND_FDS_H
#define MPROF_PRELOAD_LIBUNWIND_FDS_H

/* Binds the pipe, read and write imports of libunwind (handle, from
 * dlopen) to the shim's stand-ins; to be called before anything calls
 * into it, since its first use opens its pipe.  Returns 0, or a negative
 * errno when they could not all be bound (import_bind_module's): libunwind
 * must then not be called. */
int libunwind_fds_bind(void *handle);

#endif
