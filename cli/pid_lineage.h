/*
 * cli/pid_lineage.h - whether a process is another one or descends from it,
 * by the parent links in /proc (pid_lineage.c).  Async-signal-safe: the
 * launcher's signal handler asks it; pid_info_descends_from walks with it.
 */
#ifndef MPROF_CLI_PID_LINEAGE_H
#define MPROF_CLI_PID_LINEAGE_H

#include <stdbool.h>
#include <sys/types.h>

/* Whether pid is ancestor itself or a process below it (its child, their
 * children, ...), following /proc/PID/stat's parent pid at most 256 steps.
 * A zombie still names its parent; a process already reaped, or one whose
 * /proc entry cannot be read, counts as not below.  Uses only open(),
 * read() and close(). */
bool pid_lineage_below(pid_t pid, pid_t ancestor);

#endif
