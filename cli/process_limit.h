/*
 * cli/process_limit.h - whether the processes the program may start are
 * close to a limit, so that a process of the launcher's own (the analyzer
 * waiting through the run) could make one of the program's forks fail.
 */
#ifndef MPROF_CLI_PROCESS_LIMIT_H
#define MPROF_CLI_PROCESS_LIMIT_H

#include <stdbool.h>

/* Fewer free process slots than this in a cgroup counts as near its limit. */
#define PROCESS_LIMIT_CGROUP_HEADROOM 1024

/*
 * True when either limit on new processes and threads is near:
 * - RLIMIT_NPROC lowered below the kernel's default of threads-max / 2,
 *   for a user other than root (whom the kernel does not hold to it);
 * - the pids controller of the launcher's cgroup or one of its ancestors
 *   (cgroup v1 or v2, found through /proc/self/cgroup and
 *   /proc/self/mountinfo) allows fewer than PROCESS_LIMIT_CGROUP_HEADROOM
 *   more tasks (pids.max - pids.current).
 * A file that cannot be read counts as no limit, except threads-max (a
 * lowered RLIMIT_NPROC then counts as near).  Allocates and frees a few
 * small buffers; no error return.
 */
bool process_limit_near(void);

/*
 * The smallest pids.max - pids.current over the directory cgroup_dir and
 * its ancestors up to and including mount_dir (both absolute paths, no
 * trailing slash, cgroup_dir under mount_dir); -1 when no level sets a
 * limit.  Exposed for tests.
 */
long long process_limit_cgroup_headroom(const char *mount_dir, const char *cgroup_dir);

#endif
