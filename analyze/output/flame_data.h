/*
 * analyze/output/flame_data.h - the data of mprof's flame graph page
 * (assets/flamegraph.html), written by the report's flamegraph, the report
 * page and diff's flamegraph and page, and the page filled in around it.
 *
 * The data, schema "mprof-flamegraph" version FLAME_DATA_SCHEMA_VERSION,
 * one JSON object:
 *
 *   {"schema": "mprof-flamegraph", "schema_version": FLAME_DATA_SCHEMA_VERSION,
 *    "trace": str, "program": str or null (command line, else executable),
 *    "exe": str or null (the executable's file name), "pid": int or null,
 *    "sampled": bool, "kind": str (exact or estimates, as the text report),
 *    "notes": [str] (what qualifies the numbers, as the text report's),
 *    "metric": {"name": str, "label": str, "bytes": bool,  (the one shown)
 *               "qualifier": null, "rough" (a sampled trace's peak: no
 *               unbiased estimate) or "at most" (temporary of a trace
 *               recorded in part: upper bounds); the page shows it beside
 *               the metric's label, with a note},
 *    "columns": [str],  what each node's values are: metric names, and for
 *                       a diff "a:NAME" for A's ("allocations" is the count
 *                       the tooltip shows)
 *    "total": int       the sum of the first column over the nodes
 *    "frames": [[name, file or null, line (0 unknown; -1: a diff's frame
 *                that stands for frames on different lines, file then the
 *                path or file name they share, or null), module or null,
 *                inlined (0 or 1)], ...],
 *    "nodes": [frame, parent, value per column, ...]  depth first (a parent
 *        before its children), parent -1 for an outermost frame; the values
 *        summed over the sites whose stack ends there,
 *    a diff only: "base": {"trace": str (A's), "kind": str (A's)}}
 *
 * Version 3 had no line -1: a diff named such a frame by one of its lines.
 * Version 2 had no "qualifier" in "metric".  Version 1 had no "columns":
 * its nodes were [frame, parent, value of the metric, allocations].
 */
#ifndef MPROF_ANALYZE_OUTPUT_FLAME_DATA_H
#define MPROF_ANALYZE_OUTPUT_FLAME_DATA_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "analyze/output/stack_tree.h"
#include "analyze/profile/metric.h"
#include "analyze/profile/profile.h"

/* The flame data's schema version (above); tests/e2e read it here. */
#define FLAME_DATA_SCHEMA_VERSION 4

/* What a tree's key stands for: frame `frame` of table (a stackless site's
 * name "[no stack]" at table->frame_count, "[inherited at fork]" past it). */
struct flame_key {
	const struct site_table *table;
	uint32_t frame;
	/* a frame that stands for several (a diff's): named instead of frame
	 * `frame` when not NULL, its line -1 when lines_differ */
	const struct site_frame *shown;
	bool lines_differ;
};

/* What the reports call the program (run_facts_name: its command line,
 * else its executable, else NULL), composed in out[cap] when need be. */
const char *flame_data_program(const struct profile *p, char *out, size_t cap);

/* Writes the data's first members, "schema" and "schema_version", each
 * followed by a comma (no brace before them). */
void flame_data_schema(FILE *out);

/* Writes the run's members, "trace" to "notes" (no braces around them). */
void flame_data_run(FILE *out, const struct profile *p);

/* Writes "metric": {...} of m, qualified by qualifier (NULL: nothing;
 * profile_metric_qualifier). */
void flame_data_metric(FILE *out, enum metric m, const char *qualifier);

/*
 * Writes "columns", "total", "frames" and "nodes" of tree (sorted), whose
 * node keys index keys[], columns naming its tree->value_count values.
 * Returns 0 or -ENOMEM.
 */
int flame_data_tree(FILE *out, const struct stack_tree *tree, const struct flame_key *keys,
		    size_t key_count, const char *const *columns);

/*
 * Writes the page (assets/flamegraph.html) to out, its title prefix,
 * program (cut at FLAME_TITLE_MAX bytes) and suffix as HTML text, its data
 * what data(js, ctx) writes to a script-safe stream.  Returns 0 or what
 * data returns (a negative errno).
 */
#define FLAME_TITLE_MAX 160
int flame_page_write(FILE *out, const char *prefix, const char *program, const char *suffix,
		     int (*data)(FILE *js, void *ctx), void *ctx);

#endif
