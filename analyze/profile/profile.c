/*
 * analyze/profile/profile.c - profile_load (profile.h): the pipeline from a
 * trace file to its profile.  A fork child's aggregation first takes the
 * blocks it inherited (inherit.h), so that frees of them match.
 *
 * Owns, for the life of a profile, the stack nodes (freed by the sites'
 * build), the aggregation (its per-stack statistics freed by the sites'
 * build too) and the symbolizer (the sites' frames point into it).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/aggregate/agg_read.h"
#include "analyze/aggregate/aggregate.h"
#include "analyze/profile/inherit.h"
#include "analyze/profile/profile.h"
#include "analyze/read/event_stream.h"
#include "analyze/read/stack_nodes.h"
#include "analyze/symbolize/symbolize.h"
#include "analyze/util/error.h"
#include "analyze/util/huge_array.h"
#include "analyze/util/saturate.h"

/* What sites point into, private to the pipeline. */
struct profile_build {
	struct stack_nodes nodes;    /* freed by the sites' build */
	struct aggregate agg;        /* totals, finished; its per-stack statistics
	                              * are freed by the sites' build */
	struct symbolizer *sym;
	struct window_sink window;   /* while reading, with a time window */
};

/* The run time of a trace without an END chunk (its program or launcher
 * was killed), for percents: from its first to its last TIME stamp, as the
 * report gives it, and 1 ns more, so that 100% holds the events stamped
 * with the last (a window's end is exclusive); which takes a reading of
 * the whole trace.  Returns 1 with *run_ns when the trace has two stamps
 * apart, 0 when it has not, -1 when it cannot be read (the reader's message,
 * naming path, in err: the cause to give, not the missing run time). */
static int run_time_by_reading(const char *path, uint64_t *run_ns, char *err, size_t err_bytes)
{
	struct trace_info info;
	struct stack_nodes nodes;
	struct module_maps maps;
	struct aggregate agg;
	int ok = 0;

	trace_info_init(&info);
	stack_nodes_init(&nodes);
	module_maps_init(&maps);
	if (aggregate_init(&agg) == 0) {
		if (aggregate_read_trace(path, &info, &nodes, &maps, &agg, err, err_bytes) != 0)
			ok = -1;
		else if (agg.time_known && agg.last_time_ns > agg.first_time_ns)
			ok = 1;
		if (ok == 1)
			*run_ns = agg.last_time_ns - agg.first_time_ns + 1;
		aggregate_free(&agg);
	}
	trace_info_free(&info);
	stack_nodes_free(&nodes);
	module_maps_free(&maps);
	return ok;
}

/* Resolves spec for the trace at path into p->window (the run time, for
 * percents, from its END chunk, else by reading the trace once more).
 * Returns 0, 1 (out of memory, or the trace cannot be read) or 2 (the
 * window does not fit this trace), reported. */
static int window_prepare(struct profile *p, const char *path, const struct window_spec *spec)
{
	struct kv_list end = {0};
	char err[512];
	uint64_t run_ns = 0;
	bool has_run = false;
	int rc;

	p->window_spec = *spec;
	if (spec->from.percent || spec->to.percent || spec->at.percent) {
		rc = event_stream_read_end(path, &end);
		if (rc == -ENOMEM) {
			kv_list_free(&end);
			analyze_error("%s: out of memory", path);
			return 1;
		}
		has_run = run_facts_wall_ns(&end, &run_ns);
		kv_list_free(&end);
		if (!has_run) {
			int known = run_time_by_reading(path, &run_ns, err, sizeof(err));

			if (known < 0) {
				analyze_error("%s", err);
				return 1;
			}
			has_run = known > 0;
		}
	}
	if (window_resolve(spec, has_run, run_ns, &p->window, err, sizeof(err)) < 0) {
		analyze_error("%s: %s", path, err);
		return 2;
	}
	return 0;
}

#define MARKER_NAMES_SHOWN 20

/* Appends to buf (size bytes, a string) the first MARKER_NAMES_SHOWN
 * distinct marker names of info with their counts, "a, b (3 times)", at
 * most a line's worth; then ", ..." when there are more (one pass: a trace
 * may hold millions of markers). */
static void marker_names(const struct trace_info *info, char *buf, size_t size)
{
	const char *names[MARKER_NAMES_SHOWN];
	size_t times[MARKER_NAMES_SHOWN], shown = 0;
	bool more = false;

	for (size_t i = 0; i < info->marker_count; i++) {
		const char *name = info->markers[i].name;
		size_t k = 0;

		while (k < shown && strcmp(names[k], name) != 0)
			k++;
		if (k < shown) {
			times[k]++;
		} else if (shown < MARKER_NAMES_SHOWN) {
			names[shown] = name;
			times[shown++] = 1;
		} else {
			more = true;
		}
	}
	for (size_t k = 0; k < shown; k++) {
		size_t used = strlen(buf);

		if (used + strlen(names[k]) + 32 >= size) {
			more = true;
			break;
		}
		snprintf(buf + used, size - used, times[k] > 1 ? "%s%s (%zu times)" : "%s%s",
			 k ? ", " : "", names[k][0] ? names[k] : "\"\"", times[k]);
	}
	if (more)
		snprintf(buf + strlen(buf), size - strlen(buf), ", ...");
}

/* After a read with a window of markers: each named marker came, and a
 * range's start came before its end; else reports which did not (naming
 * the markers the trace has) and returns -1. */
static int window_markers_check(const struct profile *p, const char *path)
{
	const struct window_facts *f = &p->window;
	const struct window_spec *spec = &p->window_spec;
	const struct window_time *missing = f->at_marker && !f->at_seen ? &spec->at
					    : f->from_marker && !f->from_seen ? &spec->from
					    : f->to_marker && !f->to_seen ? &spec->to : NULL;
	char names[512] = "";

	if (missing) {
		marker_names(&p->info, names, sizeof(names));
		analyze_error("%s: no marker %s in the trace (%s%s)", path, missing->text,
			      p->info.marker_count ? "its markers: " : "it has no markers", names);
		return -1;
	}
	if (f->range && ((f->from_marker && f->to_marker && f->to_seq <= f->from_seq) ||
			 (f->from_marker != f->to_marker && spec->to.given &&
			  f->to_ns <= f->from_ns))) {
		analyze_error("%s: --from %s is not before --to %s", path, spec->from.text,
			      spec->to.text);
		return -1;
	}
	return 0;
}

int profile_load(struct profile *p, const char *path, const struct site_options *opt,
		 const struct profile_progress *progress)
{
	return profile_load_window(p, path, opt, NULL, progress);
}

int profile_load_window(struct profile *p, const char *path, const struct site_options *opt,
			const struct window_spec *spec, const struct profile_progress *progress)
{
	return profile_load_seeded(p, path, opt, spec, progress, NULL);
}

int profile_load_seeded(struct profile *p, const char *path, const struct site_options *opt,
			const struct window_spec *spec, const struct profile_progress *progress,
			const struct inherit_seed *seed)
{
	struct profile_build *t;
	struct huge_spare spare;
	struct window_sink *w = NULL;
	char err[512];
	int rc;

	memset(p, 0, sizeof(*p));
	trace_info_init(&p->info);
	module_maps_init(&p->maps);
	t = calloc(1, sizeof(*t));
	if (!t) {
		analyze_error("out of memory");
		return 1;
	}
	p->build = t;
	stack_nodes_init(&t->nodes);
	if (aggregate_init(&t->agg) < 0) {
		analyze_error("out of memory");
		return 1;
	}
	err[0] = '\0';
	if (window_spec_given(spec)) {
		rc = window_prepare(p, path, spec);
		if (rc != 0)
			return rc;
		w = &t->window;
		if (window_sink_init(w, &p->window, NULL) < 0) {
			analyze_error("out of memory");
			return 1;
		}
		w->spec = &p->window_spec;
		w->info = &p->info;
	}
	/* a range counts the frees of inherited blocks apart, as of any block
	 * allocated outside it (window.h) */
	if (!p->window.range && inherit_seed(path, seed, &t->agg, p->inherit_note,
					     sizeof(p->inherit_note)) == -ENOMEM) {
		analyze_error("%s: out of memory reading the parent's trace", path);
		return 1;
	}
	p->info.window_at = p->window.at;
	if (p->window.range) {
		const char *no_index = getenv("MPROF_NO_INDEX");

		p->info.window_range = true;
		p->info.window_from_ns = p->window.from_ns;
		p->info.window_to_ns = p->window.to_ns == UINT64_MAX ? 0 : p->window.to_ns;
		p->info.no_index = no_index && *no_index && strcmp(no_index, "0") != 0;
	}
	if (progress) {
		p->info.progress = progress->show;
		p->info.progress_ctx = progress->ctx;
	}
	rc = aggregate_read_trace_window(path, &p->info, &t->nodes, &p->maps, &t->agg, w, err,
					 sizeof(err));
	if (w)
		window_sink_free(w); /* its blocks serve events only */
	if (progress && progress->done)
		progress->done(progress->ctx);
	p->info.progress = NULL;
	p->info.progress_ctx = NULL;
	if (rc < 0) {
		analyze_error("%s", err);
		return 1;
	}
	if (p->info.index_note[0])
		analyze_error("warning: %s: the chunk index is not used (%s); every chunk was "
			      "read", path, p->info.index_note);
	p->window.index_chunks_skipped = p->info.index_chunks_skipped;
	if (w && window_markers_check(p, path) < 0)
		return 2;
	timeline_match_rss(&t->agg.timeline, &p->info.rss);
	p->timeline = &t->agg.timeline;
	/* the block table's memory, faulted in, for the sites */
	aggregate_release_blocks(&t->agg, &spare);
	site_spare_fit(&spare, &t->agg, &t->nodes);
	heap_summary_fill(&p->summary, &t->agg);
	/* and the calls cut short whose numbers were never published, which
	 * only the reader counts */
	p->summary.cut_calls = sat_add(p->summary.cut_calls, p->info.cut_unknown,
				       &p->summary.saturated);
	if (p->summary.time_known)
		window_markers_time(&p->window, p->summary.first_time_ns);
	t->sym = symbolizer_new(&p->maps);
	if (!t->sym) {
		huge_array_free(spare.p, spare.reserved);
		analyze_error("out of memory");
		return 1;
	}
	for (size_t i = 0; i < p->info.symbols_count; i++)
		if (symbolizer_load_embedded(t->sym, p->info.symbols[i],
					     p->info.symbols_bytes[i]) < 0)
			analyze_error("warning: %s: embedded symbols are corrupt; "
				      "symbolizing from the binaries instead", path);
	if (site_table_build(&p->sites, &t->agg, &t->nodes, t->sym, opt, &spare) < 0) {
		analyze_error("%s: out of memory building allocation sites", path);
		return 1;
	}
	if (p->sites.saturated || p->info.unrecorded_saturated)
		p->summary.saturated = true;
	run_facts_collect(&p->run, &p->info, &p->summary, &p->sites);
	return 0;
}

void profile_free(struct profile *p)
{
	struct profile_build *t = p->build;

	site_table_free(&p->sites);
	if (t) {
		if (t->sym)
			symbolizer_free(t->sym);
		aggregate_free(&t->agg);
		window_sink_free(&t->window);
		stack_nodes_free(&t->nodes);
		free(t);
	}
	p->build = NULL;
	module_maps_free(&p->maps);
	trace_info_free(&p->info);
}

