/*
 * analyze/cmd/diff.h - the diff subcommand of mprof-analyze: compares two
 * traces allocation site by allocation site (analyze/cmd/diff.c).
 */
#ifndef MPROF_ANALYZE_CMD_DIFF_H
#define MPROF_ANALYZE_CMD_DIFF_H

/* `mprof-analyze diff A B [-n N] [--format text|json] [--alloc-fn NAME]...`;
 * argv[0] is "diff" (as getopt expects).  Prints the diff on stdout and
 * returns the exit status: 0 (whether or not A and B differ), 1 unreadable
 * input or a failed write, 2 usage error. */
int cmd_diff(int argc, char **argv);

#endif
