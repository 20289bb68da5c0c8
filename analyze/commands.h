/*
 * analyze/commands.h - the report subcommand of mprof-analyze and the one
 * error printer.  cmd_report takes the arguments from the subcommand name on
 * (argv[0] is "report", as getopt expects) and returns the process exit status: 0 success, 1 bad or
 * unreadable input, 2 usage error.
 */
#ifndef MPROF_ANALYZE_COMMANDS_H
#define MPROF_ANALYZE_COMMANDS_H

/* `mprof-analyze report TRACE... [-n N] [--format text|json] [--alloc-fn NAME]...` */
int cmd_report(int argc, char **argv);

/* `mprof-analyze symbolize TRACE...` is cmd_symbolize() in
 * analyze/cmd_symbolize.h; it takes the trace paths only (argv[0] is the
 * first trace). */

/* Prints "mprof-analyze: MESSAGE" on stderr (the one place that does). */
void analyze_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The name messages and usage lines give the analyzer: "mprof" when `mprof
 * report` or `mprof diff` started it (MPROF_ANALYZE_NAME=mprof), else
 * "mprof-analyze". */
const char *analyze_name(void);

#endif
