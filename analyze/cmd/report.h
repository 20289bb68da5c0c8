/*
 * analyze/cmd/report.h - the report subcommand of mprof-analyze.
 * cmd_report takes the arguments from the subcommand name on (argv[0] is
 * "report", as getopt expects) and returns the process exit status: 0
 * success, 1 bad or unreadable input, 2 usage error.
 */
#ifndef MPROF_ANALYZE_CMD_REPORT_H
#define MPROF_ANALYZE_CMD_REPORT_H

/* `mprof-analyze report TRACE... [-n N] [--format text|json] [--alloc-fn NAME]...` */
int cmd_report(int argc, char **argv);

/* `mprof-analyze symbolize TRACE...` is cmd_symbolize() in
 * analyze/cmd/symbolize.h; it takes the trace paths only (argv[0] is the
 * first trace). */

#endif
