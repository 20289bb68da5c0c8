/*
 * cli/std_fds.h - keeping the launcher's standard descriptors (0, 1, 2)
 * taken while it runs, so that none of its own files lands on them.
 */
#ifndef MPROF_CLI_STD_FDS_H
#define MPROF_CLI_STD_FDS_H

/*
 * Opens /dev/null, close-on-exec, on each of descriptors 0, 1 and 2 that is
 * closed: the launcher's messages then go nowhere instead of into a trace
 * or the session directory it opens next, the analyzer it starts always has
 * a stderr to take as its stdout, and the program, which is started by
 * exec, still finds them closed.  Call it first, before anything is opened.
 * Leaves a descriptor closed when /dev/null cannot be opened.
 */
void std_fds_hold(void);

#endif
