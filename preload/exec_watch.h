/*
 * preload/exec_watch.h - the exec family and posix_spawn, wrapped to count
 * the programs started with an environment that drops the recorder
 * (preload/exec_watch.c; the process header's execs_unrecorded).
 */
#ifndef MPROF_PRELOAD_EXEC_WATCH_H
#define MPROF_PRELOAD_EXEC_WATCH_H

/* Looks up the C library's definitions behind the wrappers; called once
 * by the initializing thread, before a vfork child could need them. */
void exec_watch_resolve(void);

/*
 * An execve or execveat system call made through syscall() (path as the
 * call names it, argv and envp as given): noted before it as the exec
 * wrappers note theirs (the process header's exec_self, or a vfork child's
 * count), so the launcher can name a program that replaced the image
 * unrecorded instead of taking its status for the image's exit; an empty
 * path (execveat's AT_EMPTY_PATH) is named by argv[0], as fexecve is.  The
 * arguments are copied through process_vm_readv (preload/exec_args.h): an
 * address the kernel refuses with EFAULT, or memory another thread unmaps
 * meanwhile, notes nothing and is no fault.  Returns what was noted, for
 * exec_watch_raw_after to take back when the call fails.  Keeps errno;
 * never allocates (about 4 KiB of stack); nothing in a thread on a thread
 * pointer of its own (preload/thread_pointer.h), nor under a seccomp
 * filter, which may kill the process for the call.
 */
int exec_watch_raw_before(const char *path, char *const argv[], char *const envp[]);
void exec_watch_raw_after(int noted);

#endif
