/*
 * analyze/util/error.h - the analyzer's one error printer, and the name
 * and command it goes by.  Library code returns -errno and a message; the commands (and
 * the profile pipeline, for warnings about a trace) print through here.
 */
#ifndef MPROF_ANALYZE_UTIL_ERROR_H
#define MPROF_ANALYZE_UTIL_ERROR_H

/* Prints "NAME: MESSAGE" on stderr (NAME from analyze_name), after flushing
 * stdout so that the two stay in order on a terminal. */
void analyze_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The name messages and usage lines give the analyzer: "mprof" when `mprof
 * report` or `mprof diff` started it (MPROF_ANALYZE_NAME=mprof), else
 * "mprof-analyze". */
const char *analyze_name(void);

/* Keeps main's argv0 for analyze_command. */
void analyze_command_init(const char *argv0);

/* The command the analyzer's hints tell the user to run ("see 'CMD report
 * --help'"), as one shell word: the mprof that started it
 * (MPROF_ANALYZE_COMMAND, cli/self_command.h), else "mprof" under that
 * name; run as itself, argv0 when it is a path, else "mprof-analyze". */
const char *analyze_command(void);

/* The command that runs mprof's launcher ("CMD run --no-children"): the
 * mprof that started the analyzer (MPROF_ANALYZE_COMMAND under that name),
 * else "mprof": run as itself the analyzer has no "run". */
const char *analyze_launcher_command(void);

#endif
