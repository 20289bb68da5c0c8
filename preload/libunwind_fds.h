/*
 * preload/libunwind_fds.h - the descriptors libunwind opens (its
 * memory-validation pipe) kept at the top of RLIMIT_NOFILE, away from the
 * numbers the program opens and closes (libunwind_fds.c says why).
 *
 * The shim defines pipe() and pipe2(); they are the C library's for every
 * caller but a thread whose libunwind_fds_inside is set.
 */
#ifndef MPROF_PRELOAD_LIBUNWIND_FDS_H
#define MPROF_PRELOAD_LIBUNWIND_FDS_H

/* Non-zero while the thread runs libunwind's code (set and cleared around
 * every call into it, preload/unwind.c). */
extern __thread int libunwind_fds_inside __attribute__((tls_model("initial-exec")));

#endif
