/*
 * preload/seccomp_watch.h - whether the process runs under a seccomp filter,
 * known without a system call that a filter may kill (preload/seccomp_watch.c).
 */
#ifndef MPROF_PRELOAD_SECCOMP_WATCH_H
#define MPROF_PRELOAD_SECCOMP_WATCH_H

/* Reads the Seccomp field of /proc/self/status: a filter inherited from the
 * parent.  Called once by the initializing thread, at the start, before the
 * program could install one of its own. */
void seccomp_watch_start(void);

/* 1 when a thread of the process may be under a seccomp filter (or strict
 * mode): one was in force at the start, or the program installed one
 * through prctl(PR_SET_SECCOMP) or syscall(SYS_seccomp) since.  Makes no
 * system call.  A filter installed by the program's own system call
 * instruction is not seen. */
int seccomp_watch_filtered(void);

/* Before a call that may install a filter (prctl(PR_SET_SECCOMP),
 * syscall(SYS_seccomp)): nothing may need membarrier() afterwards, the
 * exit note's argument bounds are read while /proc can still be opened, and
 * what the recording paths would ask the kernel for later (RLIMIT_STACK,
 * the place of a thread's id) is kept. */
void seccomp_watch_before(void);

/* After it: rc is what the call returned (a filter returns 0, or a
 * listener's descriptor; -1 failed); strict is non-zero when the call put
 * the calling thread in strict mode, whose later allocator calls are then
 * counted as unrecorded (a note says so).  Keeps errno. */
void seccomp_watch_after(long rc, int strict);

#endif
