/*
 * analyze/cmd/diff.h - the diff subcommand of mprof-analyze: compares two
 * traces allocation site by allocation site (analyze/cmd/diff.c, analyze/diff/).
 */
#ifndef MPROF_ANALYZE_CMD_DIFF_H
#define MPROF_ANALYZE_CMD_DIFF_H

/* `mprof-analyze diff A B [options]`; argv[0] is "diff" (as getopt
 * expects).  Prints the diff on stdout, the --fail-if conditions that held
 * on stderr, and returns the exit status: 0 no condition held (whether or
 * not A and B differ), 1 one held, 2 usage error, unreadable input,
 * different programs without --force, or a failed write. */
int cmd_diff(int argc, char **argv);

#endif
