/*
 * cli/analyzer.h - running mprof-analyze, the trace analyzer, from mprof.
 */
#ifndef MPROF_CLI_ANALYZER_H
#define MPROF_CLI_ANALYZER_H

#include <stddef.h>
#include <sys/types.h>

#include "cli/kept_images.h"

/*
 * Runs `mprof-analyze symbolize TRACE...` and waits for it (its stdout goes
 * to mprof's stderr; SIGINT, SIGQUIT, SIGHUP and SIGTERM blocked), or hands
 * the traces to the analyzer analyzer_prestart started.  A missing or
 * failing analyzer only gives one warning: the traces stay valid without
 * their SYMBOLS chunk.  Returns 0 when the
 * symbols were embedded, -1 otherwise.  The programs in kept (may be NULL)
 * are handed to it, to read the symbols of files gone from their paths.
 */
int analyzer_symbolize(char *const traces[], size_t ntraces, const struct kept_images *kept);

/*
 * Starts the analyzer for the symbolize step now, while the program runs:
 * it waits for analyzer_symbolize's request on a socket (with SIGINT,
 * SIGQUIT, SIGHUP and SIGTERM blocked, as the analyzer analyzer_symbolize
 * starts has them) and ends by itself when the launcher ends without one.
 * Nothing happens when it cannot start, or when new processes are near a
 * limit (cli/process_limit.h: it would take one the program may need):
 * analyzer_symbolize then starts one at
 * the end, as it does when this one is gone by then.  Returns its pid, or
 * 0.  Call it from the launcher's main thread.
 */
pid_t analyzer_prestart(void);

/* Replaces mprof with `mprof-analyze <subcommand> args...`; exits with
 * status 125 when the analyzer cannot be executed. */
_Noreturn void analyzer_exec(const char *subcommand, int argc, char *const argv[]);

/* Whether the analyzer is there to run. */
int analyzer_available(void);

#endif
