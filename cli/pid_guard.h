/*
 * cli/pid_guard.h - knowing that a pid still names the process it named
 * when the launcher first saw it.  A process ends and its parent reaps it;
 * its pid is then free and a later process may get it, whose /proc figures
 * (peak RSS, command line, state) would land in the ended one's trace.  A
 * guard holds a pidfd of the process, opened once its identity was checked
 * (it maps its process file); a figure read from /proc/PID is kept only if
 * the pidfd's process still exists (alive or a zombie: not reaped, so the
 * pid is still its) after the read.
 */
#ifndef MPROF_CLI_PID_GUARD_H
#define MPROF_CLI_PID_GUARD_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct pid_guard {
	unsigned pid;                  /* in the launcher's PID namespace; 0: none */
	int pidfd;                     /* -1: none (kernel before 5.3, or no
	                                * descriptor in its share: start_ticks) */
	unsigned long long start_ticks; /* its start (/proc/PID/stat field 22), 0: unknown */
};

/* A guard that holds nothing (pid_guard_holds is false). */
#define PID_GUARD_NONE ((struct pid_guard){ 0, -1, 0 })

/*
 * Takes hold of pid if it is the process that was alive at alive_mono_ns
 * (CLOCK_MONOTONIC; 0: unknown), i.e. started before it, or else that maps
 * the file dev:ino (its process file, which the recorder keeps mapped
 * while its image runs; when the start times cannot tell, within a clock
 * tick): a pid already reaped and given to another process is not held
 * (an image that executed another is the same process; the maps, though,
 * show the next image's file only, so it may not be).  Returns
 * 0, or a negative errno (ESRCH: not that process, or it ended; EACCES:
 * /proc/PID/maps cannot be read), with *g holding nothing.  The pidfd is
 * g's to close (pid_guard_release).
 */
int pid_guard_take(struct pid_guard *g, unsigned pid, uint64_t alive_mono_ns, dev_t dev,
		   ino_t ino);

/*
 * Whether pid runs an image that does not map the file dev:ino (a process
 * file): its /proc/PID/maps read, with mappings (not a process that ended),
 * none of them that file.  False when they cannot be read.  One read of
 * the maps, some 30-100 us.
 */
bool pid_guard_maps_other(unsigned pid, dev_t dev, ino_t ino);

/* Whether g holds a process (pid_guard_take succeeded). */
bool pid_guard_holds(const struct pid_guard *g);

/*
 * Whether g's process has not been reaped yet: its pid is still its, so
 * what was read from /proc/PID before this call was its own (running or
 * a zombie).  False when g holds nothing.
 */
bool pid_guard_current(const struct pid_guard *g);

/*
 * Whether g's process has surely been reaped (its pid may name another
 * process now): false when g holds nothing, and when /proc/PID cannot be
 * read for want of a descriptor or memory, so that a running process is
 * never taken for ended under ulimit -n.  A zombie whose threads have all
 * ended counts as reaped on the start-time path (it has ended).
 */
bool pid_guard_reaped(const struct pid_guard *g);

/*
 * Whether pid exists, has not ended (pid_info_running) and is not a
 * newcomer: a process that started after alive_mono_ns (CLOCK_MONOTONIC,
 * when the process that had the pid was alive; 0: unknown) got the pid
 * after that one was reaped.  One read of /proc/PID/stat.
 */
bool pid_guard_pid_running(unsigned pid, uint64_t alive_mono_ns);

/*
 * pid_guard_pid_running for pid (alive at alive_mono_ns), and, when g holds
 * it, whether it is still g's process (!pid_guard_reaped).  On the
 * start-time path one read of /proc/PID/stat serves both.
 */
bool pid_guard_running(const struct pid_guard *g, unsigned pid, uint64_t alive_mono_ns);

/* Closes g's pidfd; g then holds nothing. */
void pid_guard_release(struct pid_guard *g);

#endif
