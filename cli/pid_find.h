/*
 * cli/pid_find.h - finding the pid, in mprof's PID namespace, of a process
 * whose recorder knew only its pid in its own namespace (pid_find.c).
 */
#ifndef MPROF_CLI_PID_FIND_H
#define MPROF_CLI_PID_FIND_H

#include <stdbool.h>
#include <stdint.h>

#include "cli/pid_window.h"

/* A process as its recorder knew it (trace/session.h: ns_pid, pidns_*). */
struct pid_find_key {
	unsigned ns_pid;      /* its getpid(), in its own PID namespace */
	uint64_t ns_dev;      /* that namespace: st_dev, */
	uint64_t ns_ino;      /* st_ino of its /proc/self/ns/pid */
};

enum pid_find_result {
	PID_FIND_FOUND,   /* *pid is the process */
	PID_FIND_GONE,    /* no live process is */
	PID_FIND_UNSURE,  /* none found, but a process mprof may not inspect
	                   * (another user's) has that pid in a namespace */
};

/* Whether pid is the process of key: 1 yes, 0 no, -1 cannot tell (its
 * namespace is another user's to read). */
int pid_find_is(unsigned pid, const struct pid_find_key *key);

/* Looks for it among the children of parent's threads
 * (/proc/PARENT/task/TID/children); true when found, in *pid. */
bool pid_find_child(unsigned parent, const struct pid_find_key *key, unsigned *pid);

/* Looks for it among the processes whose pids window holds. */
enum pid_find_result pid_find_scan(const struct pid_window *window, const struct pid_find_key *key,
				   unsigned *pid);

#endif
