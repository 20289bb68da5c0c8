/*
 * cli/pid_window.h - which process IDs can belong to processes created
 * after a point in time, so that a scan of /proc for the run's processes
 * reads only those instead of every process on the machine.
 *
 * Linux hands out the IDs of a PID namespace in a cycle: each new task
 * (process or thread) gets the next free ID after the last one given
 * (/proc/sys/kernel/ns_last_pid), wrapping from pid_max back to 300.  So
 * every process created after the launcher has an ID in the cyclic range
 * from the launcher's own ID (excluded) to the last ID given (included),
 * as long as the cycle has not gone all the way round meanwhile.  A round
 * skips the IDs in use, so it takes at least pid_max - 300 - U new tasks,
 * U the most tasks alive at once meanwhile; U is at most the tasks alive
 * at the start (/proc/loadavg) plus those created since (the machine's
 * count of tasks created since boot, "processes" in /proc/stat), so no
 * round can have happened while twice the tasks created plus those alive
 * at the start stay below pid_max - 300.  When
 * anything needed cannot be read, or /proc is not the launcher's own PID
 * namespace, or the cycle may have gone round, the window holds every ID
 * and the scan reads everything, as it would without it.  A task created
 * with an ID of its choosing (clone3's set_tid, a write of ns_last_pid:
 * checkpoint-restore tools, with CAP_SYS_ADMIN or CAP_CHECKPOINT_RESTORE)
 * can fall outside.
 */
#ifndef MPROF_CLI_PID_WINDOW_H
#define MPROF_CLI_PID_WINDOW_H

#include <stdbool.h>

struct pid_window {
	unsigned first;   /* IDs after this one (the launcher's) */
	unsigned last;    /* up to this one, cyclically (ns_last_pid) */
	bool all;         /* the window holds every ID */
	unsigned long long tasks_start; /* /proc/stat "processes" at the start */
	unsigned long long alive_start; /* tasks alive then (/proc/loadavg) */
};

/* Whether the ID cycle surely has not gone round: created tasks were
 * created since the start, alive tasks were alive at the start, pid_max is
 * the namespace's, and a fixed margin counts the tasks created between the
 * launcher's own creation and the start. */
bool pid_window_cycle_safe(unsigned long long created, unsigned long long alive,
			   unsigned long long pid_max);

/* Opens a window after the calling process's own ID (call it early: tasks
 * created before the call and after the process count toward the bound
 * only through a fixed margin). */
void pid_window_start(struct pid_window *w);

/* Moves the window's end to the last ID given now; holds every ID from
 * then on when the cycle may have gone round or something cannot be read. */
void pid_window_update(struct pid_window *w);

/* Whether pid may be a process created after the window opened (as of
 * the last pid_window_update). */
bool pid_window_holds(const struct pid_window *w, unsigned pid);

/* The most tasks (processes and threads) the machine can have created since
 * the window opened: /proc/stat's "processes" now less at the start, plus
 * the fixed margin; ULLONG_MAX when either cannot be read.  A bound on any
 * count of processes a recorder of the run can have started. */
unsigned long long pid_window_tasks_since(const struct pid_window *w);

/* Whether /proc shows the caller's own PID namespace (its /proc/self is its
 * getpid()). */
bool pid_window_proc_is_own(void);

#endif
