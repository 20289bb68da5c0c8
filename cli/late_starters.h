/*
 * cli/late_starters.h - processes of the run that have not created their
 * process file yet.  When the program ends, a child it started a moment
 * before (fork, posix_spawn, vfork and exec) may not have reached its
 * recorder's start, and the launcher's last directory scan would miss it:
 * its trace was lost without a word in about a quarter of the runs of a
 * program that posix_spawns children and exits at once.  The launcher
 * finds such processes by their environment, which names the run's
 * session directory.
 */
#ifndef MPROF_CLI_LATE_STARTERS_H
#define MPROF_CLI_LATE_STARTERS_H

#include <stdbool.h>
#include <stddef.h>

struct late_starter {
	unsigned pid;
	bool recorder_mapped; /* the recorder library is mapped in it already */
};

/*
 * Scans /proc for running processes, other than the caller, for which
 * known(pid, arg) is false and whose environment (as exec gave it) holds
 * SESSION_ENV=session_dir, or is empty while they started at or after
 * since_ticks (a process in the middle of an exec has no environment for a
 * moment; zombies and kernel threads are passed over).  recorder_mapped tells whether the file
 * recorder_path (a resolved path; NULL: never) is mapped in the process.
 * Stores up to cap of them in out; returns how many there are (possibly
 * more than cap).  Processes whose files cannot be read are passed over.
 */
size_t late_starters_find(const char *session_dir, const char *recorder_path,
			  unsigned long long since_ticks,
			  bool (*known)(unsigned pid, void *arg), void *arg,
			  struct late_starter *out, size_t cap);

#endif
