/*
 * cli/pid_info.h - what /proc says about a process of the run.
 */
#ifndef MPROF_CLI_PID_INFO_H
#define MPROF_CLI_PID_INFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Reads /proc/pid/name (one read: these files are small) into buf, at most
 * size bytes; returns the bytes read (0 also when the read fails), or -1
 * with errno when the file cannot be opened. */
ssize_t pid_info_file_read(unsigned pid, const char *name, char *buf, size_t size);

/* Whether pid exists and has not ended: not a zombie, or one whose main
 * thread left by pthread_exit() while other threads go on. */
bool pid_info_running(unsigned pid);

/* pid_info_running, and its start (pid_info_start_ticks_any) from the same
 * read of /proc/PID/stat into *start_ticks: 0 when it cannot be read (errno
 * then says why, as for pid_info_start_ticks_any), is a kernel thread or
 * pid_info_running is false at once. */
bool pid_info_running_start(unsigned pid, unsigned long long *start_ticks);

/* Its command line, quoted as a shell reads it back (trace/argv_quote.h),
 * into out (empty when it cannot be read). */
void pid_info_cmdline(unsigned pid, char *out, size_t size);

/* Its process name (/proc/PID/comm: the main thread's, as the kernel set it
 * at exec or prctl(PR_SET_NAME) since; 15 bytes at most) into out, without
 * the newline (empty when it cannot be read). */
void pid_info_comm(unsigned pid, char *out, size_t size);

/* Its state letter from /proc/PID/stat ('R', 'S', 'T' stopped, 't' stopped
 * by a tracer, 'Z' zombie, ...), or 0 when it cannot be read. */
char pid_info_state(unsigned pid);

/* pid_info_state, and its start (pid_info_start_ticks_any) from the same
 * read of /proc/PID/stat into *start_ticks (0 when it cannot be read or
 * is a kernel thread). */
char pid_info_state_start(unsigned pid, unsigned long long *start_ticks);

/* Whether pid is a zombie with no thread left (ended, not yet waited for
 * by its parent); then
 * its wait status (as wait(2) gives it: exit status or signal) into
 * *wait_status, from /proc/PID/stat's exit_code (Linux 3.5 and later). */
bool pid_info_zombie_status(unsigned pid, int *wait_status);

/* The target of /proc/PID/exe into out (empty when it cannot be read);
 * whether it could. */
bool pid_info_exe(unsigned pid, char *out, size_t size);

/* Names its program for a message: the target of /proc/PID/exe, else its
 * command name in brackets as ps shows it, else "?". */
void pid_info_program(unsigned pid, char *out, size_t size);

/* Whether ancestor is pid's parent, or its parent's, and so on (a process
 * reparented to init descends from init only; the walk is
 * pid_lineage_below's). */
bool pid_info_descends_from(unsigned pid, unsigned ancestor);

/* When pid started, in clock ticks since boot (field 22 of /proc/PID/stat),
 * or 0 when it cannot be read, has ended (pid_info_running) or is a kernel
 * thread. */
unsigned long long pid_info_start_ticks(unsigned pid);

/* The same for a process that has ended but is not reaped yet (a zombie)
 * too: its start stays readable until its parent reaps it. */
unsigned long long pid_info_start_ticks_any(unsigned pid);

/* Its peak resident set size so far, in KiB (VmHWM of /proc/PID/status:
 * the current image's own, children not included), or 0 when it cannot be
 * read (the process ended). */
unsigned long long pid_info_peak_rss_kib(unsigned pid);

/* Whether pid catches or ignores signal sig now (SigCgt, SigIgn of
 * /proc/PID/status); false when it cannot be read. */
bool pid_info_signal_handled(unsigned pid, int sig);

/* Whether thread tid of process pid exists and has not ended: 1 when it
 * does, 0 when /proc says it is gone (no such task, or a zombie, as an
 * ended main thread of a process whose other threads run), -1 when /proc
 * cannot tell.  tid and pid in the caller's PID namespace. */
int pid_info_thread_alive(unsigned pid, unsigned tid);

/* The caller's PID namespace (st_dev, st_ino of /proc/self/ns/pid) into
 * *dev and *ino, when its /proc shows that namespace; false otherwise. */
bool pid_info_own_pidns(uint64_t *dev, uint64_t *ino);

/* The caller's PID namespace as MPROF_LAUNCHER_PIDNS gives it
 * (trace/session.h) into out; false when /proc/self/ns/pid cannot be read. */
bool pid_info_pidns_word(char *out, size_t size);

#endif
