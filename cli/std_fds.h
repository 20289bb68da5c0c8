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

/*
 * Puts /dev/null (close-on-exec) on descriptors 0 and 1, which the launcher
 * never reads or writes: once the program has ended, a pipe it read from or
 * wrote to then sees its end when the program's processes let go of it, not
 * when mprof exits (`mprof run -- prog | less` while mprof waits for the
 * run's other processes or symbolizes).  Leaves one as it is when
 * /dev/null cannot be opened.
 */
void std_fds_release_in_out(void);

#endif
