/*
 * analyze/output/overview.h - the overview `report` prints before the
 * reports of several traces: one row per trace, most allocations first.
 */
#ifndef MPROF_ANALYZE_OUTPUT_OVERVIEW_H
#define MPROF_ANALYZE_OUTPUT_OVERVIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analyze/profile/profile.h"

/* One line of the overview of several traces (`mprof report --all`): the
 * figures of one trace's report, kept after the trace itself is freed. */
struct report_overview_row {
	char *trace;              /* the path as given; owned */
	char *program;            /* run_facts_name: the command line (at the end,
	                           * when the program renamed itself), else exe,
	                           * else NULL; owned */
	bool has_pid;
	uint64_t pid;
	bool has_status, has_signal;
	int64_t exit_status, exit_signal;
	char *process_state;      /* END process_state, or NULL; owned */
	bool ended_early;         /* leaked_bytes are live at the end, not at exit */
	bool executed;            /* leaked_bytes are live at exec, not at exit */
	uint64_t allocations, peak_bytes, leaked_bytes;
	uint64_t samples;         /* allocation records (in a sampled trace the
	                           * samples; else = allocations) */
	bool sampled;             /* allocations and the rest are estimates */
};

/* Fills row from the profile p of trace path (strings copied).  Returns 0
 * or -ENOMEM. */
int report_overview_row_fill(struct report_overview_row *row, const char *path,
			     const struct profile *p);

void report_overview_row_free(struct report_overview_row *row);

/* Sorts rows by samples, then allocations, most first (their order kept on
 * a tie): one sample of a tiny block weighs 1/p (about 262,000 at 512 KiB),
 * so estimated counts can rank a helper with one sample above the program. */
void report_overview_sort(struct report_overview_row *rows, size_t n);

/* Writes the text overview: a header, one line per row, and the trace with
 * the most allocations. */
void report_text_overview(FILE *out, const struct report_overview_row *rows, size_t n);

/* Writes the start of a report set (schema mprof-report-set, see
 * output/json.c) up to the opening of its "reports" array: the reports
 * follow, separated by ",\n", then report_json_set_tail. */
void report_json_set_head(FILE *out, const struct report_overview_row *rows, size_t n);
void report_json_set_tail(FILE *out);

#endif
