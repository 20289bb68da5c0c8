/*
 * preload/exported.h - what the shim's exported functions share.  The shim
 * is built with -fvisibility=hidden (preload/local.mk): only the functions
 * marked PRELOAD_API are seen by the program and its libraries, namely the
 * allocator API, the C library's __libc_ entry points to it and dlclose
 * (interpose.c), setrlimit, setrlimit64, prlimit,
 * prlimit64, mmap and mmap64 (rlimit.c), mlockall (mlock_watch.c), madvise
 * and munmap (drop_watch.c), the exec family and posix_spawn
 * (exec_watch.c), wait, waitpid, wait3, wait4 and waitid (reap_note.c),
 * system, popen and pclose (reap_call.c), _exit and _Exit (exit_note.c),
 * prctl (seccomp_watch.c), syscall (syscall_wrap.c), clone (raw_fork.c),
 * sigaction, signal and their kin (signal_wrap.c) and
 * the mprof_api_ functions behind include/mprof.h (api.c).
 */
#ifndef MPROF_PRELOAD_EXPORTED_H
#define MPROF_PRELOAD_EXPORTED_H

#define PRELOAD_API __attribute__((visibility("default")))

/* An exported function's return address: its caller's call site. */
#define CALLER_IP __builtin_return_address(0)
/* An exported function's CFA: CALLER_IP lies just below it (x86_64 call),
 * the unwinder's shortcut (preload/unwind.h). */
#define CALLER_CFA __builtin_dwarf_cfa()

#endif
