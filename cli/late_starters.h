/*
 * cli/late_starters.h - processes of the run that have not created their
 * process file yet.  When the program ends, a child it started a moment
 * before (fork, posix_spawn, vfork and exec) may not have reached its
 * recorder's start, and the launcher's last directory scan would miss it:
 * its trace was lost without a word in about a quarter of the runs of a
 * program that posix_spawns children and exits at once.  The launcher
 * finds such processes by their environment, which names the run's
 * session directory, and tells whether the recorder can still start in
 * them, so that it can wait for those that will and name those that will
 * not.
 */
#ifndef MPROF_CLI_LATE_STARTERS_H
#define MPROF_CLI_LATE_STARTERS_H

#include <stdbool.h>
#include <stddef.h>

#include "cli/pid_window.h"

#define LATE_PROGRAM_BYTES 256

enum late_state {
	LATE_EXECUTING,   /* no environment yet: in the middle of an exec, and
	                   * perhaps not the run's (unless it descends) */
	LATE_UNREADABLE,  /* its environment cannot be read (another user's, or
	                   * not dumpable), or reads empty and it does not
	                   * descend from the caller: perhaps not the run's */
	LATE_STARTING,    /* the run's; its recorder should start soon */
	LATE_STOPPED,     /* the run's, stopped (signal or tracer) before its
	                   * recorder started */
	LATE_UNREACHABLE, /* the run's, but the recorder can never start in it */
};

struct late_starter {
	unsigned pid;
	enum late_state state;
	bool recorder_mapped;  /* the recorder library is mapped in it already */
	bool descends;         /* LATE_EXECUTING: it descends from the caller (one
	                        * that does not may be another job's, caught in
	                        * its exec, or an orphan of the run's) */
	const char *why;       /* LATE_UNREACHABLE: why, a static phrase */
	char exe[LATE_PROGRAM_BYTES];     /* /proc/PID/exe, "" when unreadable */
	char program[LATE_PROGRAM_BYTES]; /* for messages: pid_info_program() */
};

/* What late_starters_find looks for. */
struct late_query {
	const char *session_dir;   /* the run's, as SESSION_ENV holds it */
	const char *recorder_path; /* the recorder library, resolved; NULL: unknown */
	unsigned long long since_ticks; /* the run's processes started at or after
	                                 * this (clock ticks since boot) */
	const struct pid_window *window; /* and have IDs in it; NULL: any ID */
	/* Whether the image that pid runs now (exe: /proc/PID/exe, "" when it
	 * cannot be read) has a process file already. */
	bool (*known)(unsigned pid, const char *exe, void *arg);
	void *arg;
	unsigned helper_pid; /* the launcher's own helper, never the run's; 0: none */
};

/*
 * Scans /proc for running processes other than the caller that started at
 * or after q->since_ticks, with IDs in q->window (only those are read:
 * the scan costs what the run's processes cost, not what the machine's
 * do), whose current image q->known does not know, and
 * whose environment (as exec gave it) holds SESSION_ENV=session_dir, or
 * cannot be read yet (LATE_EXECUTING, LATE_UNREADABLE).  Zombies and
 * kernel threads are passed over.  Stores up to cap of them in out;
 * returns how many there are (possibly more than cap).
 */
size_t late_starters_find(const struct late_query *q, struct late_starter *out, size_t cap);

/* A phrase saying why the recorder has not started in s, for a message
 * "process PID (PROGRAM) is not recorded: PHRASE". */
const char *late_starter_reason(const struct late_starter *s);

#endif
