/*
 * cli/run_table.h - the table of a run's processes that `mprof run` prints
 * at the end when the run made several traces.
 */
#ifndef MPROF_CLI_RUN_TABLE_H
#define MPROF_CLI_RUN_TABLE_H

#include <stdbool.h>
#include <stdint.h>

#include "cli/collector.h"

/* Most rows printed; the others are summed up in one line. */
#define RUN_TABLE_MAX_ROWS 20

/*
 * Prints, as "mprof:" notes (nothing with -q), one line per trace of res
 * (program, pid, allocations, peak RSS, trace), most allocation records
 * first (in an exact run, most allocations), at most RUN_TABLE_MAX_ROWS of
 * them, then "most allocations: TRACE (program)".  In a sampled run
 * (sample_rate_bytes not 0) the first line says that the counts are
 * estimates (sums of the samples' weights) and the last says "most
 * samples".  When no trace holds an allocation record, the last line says
 * so, and why when the run started paused or was sampled.
 * Prints nothing for fewer than two traces or without res->figures.
 * Returns the index in res->traces of the trace at the top (the first of
 * them on a tie), or -1 when nothing was printed.
 */
long run_table_print(const struct collector_result *res, uint64_t sample_rate_bytes,
		     bool paused);

#endif
