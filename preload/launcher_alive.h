/*
 * preload/launcher_alive.h - whether the launcher still collects
 * (launcher_alive.c).
 */
#ifndef MPROF_PRELOAD_LAUNCHER_ALIVE_H
#define MPROF_PRELOAD_LAUNCHER_ALIVE_H

/* Maps the session's launcher file read-only (trace/session.h), once per
 * image (a fork child keeps its parent's mapping); without it,
 * preload_launcher_alive falls back on the launcher's pid.  Never
 * allocates. */
void launcher_alive_map(const char *session_dir);

/* 1 when the launcher is (or may be) alive, 0 when it is gone: its word in
 * the launcher file is cleared; without the file, kill(pid, 0) says ESRCH
 * in the launcher's PID namespace (from another one nothing is known, and
 * the answer is 1).  One load, or one system call; errno is kept. */
int preload_launcher_alive(void);

/* Wakes the launcher from a long idle wait (trace/session.h, struct
 * session_launcher's wake): one futex system call; nothing without the
 * launcher file or under a seccomp filter (preload/seccomp_watch.h).  errno
 * is kept; async-signal-safe. */
void preload_launcher_wake(void);

#endif
