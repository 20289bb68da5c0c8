/*
 * cli/die.h - the one place where the mprof command prints its own messages
 * and exits.  Every message goes to stderr with the "mprof: " prefix; the
 * launcher never writes to stdout (that belongs to the profiled program).
 */
#ifndef MPROF_CLI_DIE_H
#define MPROF_CLI_DIE_H

#include <stdbool.h>

/* Exit statuses of the mprof command (documented in `mprof --help`). */
enum mprof_exit {
	MPROF_EXIT_USAGE = 2,      /* bad command line */
	MPROF_EXIT_FAILED = 125,   /* mprof failed before the program could start */
	MPROF_EXIT_NOEXEC = 126,   /* program found but cannot be executed */
	MPROF_EXIT_NOTFOUND = 127, /* program not found */
};

/* Set by `mprof run -q`: mprof_note() then prints nothing. */
extern bool mprof_quiet;

/* Prints "mprof: <message>\n" on stderr and exits with status. */
_Noreturn void mprof_die(int status, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Prints "mprof: warning: <message>\n" on stderr (even with -q). */
void mprof_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Prints "mprof: <message>\n" on stderr unless -q was given. */
void mprof_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
