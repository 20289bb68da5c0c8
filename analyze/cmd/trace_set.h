/*
 * analyze/cmd/trace_set.h - the traces a `report` command line names: its
 * operands as they are, glob patterns expanded (a quoted 'dir/trace*'), and
 * with --all the other traces of each operand's run (FILE.PID, FILE.PID.N).
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

#endif
