/*
 * analyze/cmd/trace_set.h - the traces a `report` command line names: its
 * operands as they are, glob patterns expanded (a quoted 'dir/trace*'), and
 * with --all the other traces of each operand's run (FILE.PID, FILE.PID.N);
 * and the warnings a trace read needs on stderr, for report and diff.
 */
#ifndef MPROF_ANALYZE_TRACE_SET_H
#define MPROF_ANALYZE_TRACE_SET_H

#include <stdbool.h>
#include <stddef.h>

struct trace_set {
	char **paths;   /* owned, each owned; no path twice */
	size_t count, cap;
};

/*
 * Fills set from operands[0..n): an operand that is no file and holds a
 * glob character (*?[) is expanded, its matches in version order
 * (trace.9 before trace.10); with all, each trace is followed by its run's
 * other traces (a file named trace.NUMBER or trace.NUMBER.NUMBER beside
 * it), in version order.  Returns 0; 1 when a pattern matched nothing (the
 * others are still taken; message printed); -ENOMEM.
 */
int trace_set_expand(struct trace_set *set, char *const operands[], size_t n, bool all);

void trace_set_free(struct trace_set *set);

struct trace_info;

/* Warns on stderr, one line each, of what the reading of the trace info
 * describes was short of: a truncated file, lost chunks, META, END or
 * SYMBOLS chunks unlike the first, a second trace not read. */
void trace_set_warn(const struct trace_info *info);

#endif
