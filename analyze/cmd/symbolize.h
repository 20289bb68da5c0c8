/*
 * analyze/cmd/symbolize.h - `mprof-analyze symbolize TRACE...`: embed the
 * symbolization of every recorded call stack in each trace (a SYMBOLS chunk)
 * so reports stay the same after the binaries are gone.
 */
#ifndef MPROF_ANALYZE_CMD_SYMBOLIZE_H
#define MPROF_ANALYZE_CMD_SYMBOLIZE_H

/*
 * argv[0..argc) are trace paths.  Appends one SYMBOLS chunk to each trace
 * that has none yet (a trace that already has one is left alone).  A trace
 * that ends in a truncated or corrupt chunk is cut back to its last whole
 * chunk first, with one warning.  Messages go to stderr, prefixed
 * "mprof-analyze: ".  Debug info comes from the files and /usr/lib/debug
 * only: DEBUGINFOD_URLS is ignored unless MPROF_DEBUGINFOD is set.  Returns
 * 0 when every trace was handled, 1 otherwise.
 */
int cmd_symbolize(int argc, char **argv);

/*
 * `mprof-analyze symbolize --request-fd FD`, started by `mprof run` while
 * the program runs, with SIGINT, SIGQUIT, SIGHUP and SIGTERM blocked (see
 * cli/analyzer.h): waits for the request on socket FD
 * (trace/symbolize_request.h; killed meanwhile if the launcher dies,
 * stopped or not), answers that it has it, then works as cmd_symbolize on
 * its traces with the kept images it names.
 * Returns 0 when the socket closes without a request (nothing to do), else
 * as cmd_symbolize; 1 for a malformed request.
 */
int cmd_symbolize_request(int fd);

#endif
