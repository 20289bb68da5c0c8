/*
 * analyze/trace_sites.h - one trace read, aggregated and turned into
 * symbolized allocation sites: everything `report` and `diff` print from.
 * Implemented in cmd_report.c (the report pipeline), so that every command
 * aggregates a trace the same way.
 */
#ifndef MPROF_ANALYZE_TRACE_SITES_H
#define MPROF_ANALYZE_TRACE_SITES_H

#include "analyze/aggregate.h"
#include "analyze/event_stream.h"
#include "analyze/modules.h"
#include "analyze/sites.h"
#include "analyze/stack_nodes.h"
#include "analyze/symbols.h"

struct trace_sites {
	struct trace_info info;     /* the trace's facts (path, chunks, END, ...) */
	struct stack_nodes nodes;   /* freed by the sites' build */
	struct module_maps maps;
	struct aggregate agg;       /* totals, finished; its per-stack statistics
	                             * are freed by the sites' build */
	struct site_table sites;    /* sorted by allocated bytes; frames point into sym */
	struct symbolizer *sym;     /* owned */
	char inherit_note[768];     /* fork child: why inherited blocks are unknown, or "" */
};

/*
 * Reads the trace at path (seeding a fork child with its parent's live
 * blocks), aggregates it and builds its allocation sites with opt (NULL: no
 * extra allocator wrappers).  Prints what went wrong (and warnings about
 * corrupt embedded symbols) through analyze_error.  Returns 0, or 1 when the
 * trace is unreadable or memory ran out; t must be freed with
 * trace_sites_free either way.
 */
int trace_sites_load(struct trace_sites *t, const char *path, const struct site_options *opt);

/* Frees everything trace_sites_load made (safe on a failed load). */
void trace_sites_free(struct trace_sites *t);

#endif
