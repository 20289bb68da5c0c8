/*
 * analyze/output/overview.c - the rows of the overview that `report` prints
 * before the reports of several traces (overview.h): one per trace, made from
 * its report while the trace is loaded, and their order (most allocations
 * first, so a wrapper's child that did the work comes first).  The text
 * and JSON writers are in text.c and json.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/output/output.h"

/* A copy of s (NULL stays NULL); sets *oom when out of memory. */
static char *copy(const char *s, bool *oom)
{
	char *c;

	if (!s)
		return NULL;
	c = strdup(s);
	if (!c)
		*oom = true;
	return c;
}

int report_overview_row_fill(struct report_overview_row *row, const char *path,
			     const struct profile *r)
{
	const struct run_facts *run = &r->run;
	char composed[4096];
	bool oom = false;

	memset(row, 0, sizeof(*row));
	row->trace = copy(path, &oom);
	row->program = copy(run_facts_name(run, composed, sizeof(composed)), &oom);
	row->process_state = copy(run->process_state, &oom);
	row->has_pid = run->has_pid;
	row->pid = run->pid;
	row->has_status = run->has_status;
	row->exit_status = run->exit_status;
	row->has_signal = run->has_signal;
	row->exit_signal = run->exit_signal;
	row->ended_early = profile_ended_early(r);
	row->executed = profile_executed(r);
	row->allocations = r->summary.allocations;
	row->samples = r->summary.calls[AGG_CALL_POOL] + r->summary.calls[AGG_CALL_POOL_REALLOC];
	for (int c = AGG_CALL_MALLOC; c <= AGG_CALL_PVALLOC; c++)
		row->samples += r->summary.calls[c];
	row->sampled = r->info.sampled;
	row->peak_bytes = r->summary.peak_bytes;
	row->leaked_bytes = r->summary.live_bytes;
	if (oom) {
		report_overview_row_free(row);
		return -ENOMEM;
	}
	return 0;
}

void report_overview_row_free(struct report_overview_row *row)
{
	free(row->trace);
	free(row->program);
	free(row->process_state);
	memset(row, 0, sizeof(*row));
}

/* Insertion sort: stable, and an overview has tens of rows, not millions. */
void report_overview_sort(struct report_overview_row *rows, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		struct report_overview_row x = rows[i];
		size_t j = i;

		for (; j > 0 && (rows[j - 1].samples < x.samples ||
				 (rows[j - 1].samples == x.samples &&
				  rows[j - 1].allocations < x.allocations));
		     j--)
			rows[j] = rows[j - 1];
		rows[j] = x;
	}
}
