/*
 * analyze/output/html.c - `--format html` (`mprof report TRACE --html
 * FILE`): one self-contained page that works offline from file://: the
 * summary and what the numbers rest on, a chart of the heap over time with
 * the peak marked, a flamegraph with a metric switch and an inverted view,
 * and the top sites of each metric with their stacks.
 *
 * Owns nothing.  The page is the script and style in assets/ (embedded at
 * build time, assets/embed.sh) around one JSON blob:
 *
 *   {"report": the mprof-report object without its sites (json.c),
 *    "metrics": [{"name", "key", "label", "bytes": bool, "available": bool
 *                 (false: no estimate, temporary in a sampled trace),
 *                 "qualifier": str or null (profile_metric_qualifier)}],
 *    "sites": [[id, node (its stack: the node's path to the root in the
 *               flame graph blob below, innermost first; -1 none), value of
 *               each metric in "metrics" order (null when not available)...,
 *               max_live_bytes, freed,
 *               lifetime_ns_avg or null, stacks merged, flags (1 unknown
 *               stack, 2 inherited, 4 truncated)]],
 *    "timeline": {"points": [[ns since the first TIME stamp, heap bytes, RSS
 *                 bytes or null]], "rss": [[ns, RSS bytes]] (the samples),
 *                 "peak": [ns, heap bytes]}  (the profile's timeline,
 *                 aggregate/timeline.h)}
 *
 * and, in a second block, the flame graph of every ranked metric as one
 * blob, {"template": the flame graph page (assets/flamegraph.html, its
 * placeholders left), "data": its data (flame_data.h) with one column per
 * ranked metric}: the script fills the page in with the metric of the
 * tab clicked and shows it in a frame (srcdoc).  Both blocks go through
 * output_script_json_open, so no trace content can end them.  The number
 * formats (assets/format.js) are a script of their own, #mprof-format, that
 * the flame graph page is given too.
 */
#define _GNU_SOURCE /* open_memstream */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/output/flame_data.h"
#include "analyze/output/frames.h"
#include "analyze/output/html_text.h"
#include "analyze/output/output.h"
#include "analyze/output/script_json.h"

extern const char output_asset_report_css[], output_asset_report_js[], output_asset_format_js[];
extern const char output_asset_flamegraph_html[];

static void write_metrics(FILE *out, const struct profile *p)
{
	fputs("\"metrics\":[", out);
	for (int m = 0; m < METRIC_COUNT; m++) {
		const struct metric_info *mi = metric_info((enum metric)m);

		fprintf(out, "%s{\"name\":", m ? "," : "");
		output_json_string(out, mi->name);
		fputs(",\"key\":", out);
		output_json_string(out, mi->key);
		fputs(",\"label\":", out);
		output_json_string(out, mi->label);
		fprintf(out, ",\"bytes\":%s,\"available\":%s,\"qualifier\":",
			mi->bytes ? "true" : "false",
			profile_has_metric(p, (enum metric)m) ? "true" : "false");
		output_json_string(out, profile_metric_qualifier(p, (enum metric)m));
		fputc('}', out);
	}
	fputc(']', out);
}

/* Each site with its node in the flame graph blob's "nodes" (its frames
 * are that node's path to the root; -1: none), pos[tree node] that place. */
static void write_sites(FILE *out, const struct profile *p, const uint32_t *site_node,
			const uint32_t *pos)
{
	const struct site_table *t = &p->sites;
	fputs("\"sites\":[", out);
	for (size_t i = 0; i < t->count; i++) {
		const struct site *s = &t->sites[i];
		struct alloc_stats stats;
		const struct alloc_stats *st = site_stats(s, &stats);

		fprintf(out, "%s[%" PRIu32 ",", i ? ",\n" : "\n", s->id);
		if (s->frame_count && !s->unknown_stack && !s->inherited)
			fprintf(out, "%" PRIu32, pos[site_node[i]]);
		else
			fputs("-1", out);
		for (int m = 0; m < METRIC_COUNT; m++)
			if (profile_has_metric(p, (enum metric)m))
				fprintf(out, ",%" PRIu64, metric_site_value(s, (enum metric)m));
			else
				fputs(",null", out);
		fprintf(out, ",%" PRIu64 ",%" PRIu64 ",", st->max_live_bytes, st->freed);
		if (st->freed)
			fprintf(out, "%" PRIu64, st->lifetime_ns_sum / st->freed);
		else
			fputs("null", out);
		fprintf(out, ",%" PRIu32 ",%d]", s->stack_count,
			(s->unknown_stack ? 1 : 0) | (s->inherited ? 2 : 0) | (s->truncated ? 4 : 0));
	}
	fputc(']', out);
}

/* The heap over time for the chart: points and the peak (t-gmax). */
static void write_timeline(FILE *out, const struct profile *p)
{
	const struct timeline *tl = p->timeline;
	uint64_t t0 = p->summary.time_known ? p->summary.first_time_ns : 0;
	size_t peak = timeline_peak_index(tl);

	fputs("\"timeline\":{\"points\":[", out);
	for (size_t i = 0; i < tl->count; i++) {
		const struct timeline_point *pt = &tl->points[i];

		fprintf(out, "%s[%" PRIu64 ",%" PRIu64 ",", i ? "," : "",
			pt->time_ns > t0 ? pt->time_ns - t0 : 0, pt->heap_bytes);
		if (pt->rss_bytes == TIMELINE_RSS_UNKNOWN)
			fputs("null]", out);
		else
			fprintf(out, "%" PRIu64 "]", pt->rss_bytes);
	}
	fputs("],\"rss\":[", out);
	for (size_t i = 0; tl->rss && i < tl->rss->count; i++)
		fprintf(out, "%s[%" PRId64 ",%" PRIu64 "]", i ? "," : "",
			(int64_t)(tl->rss->v[i].time_ns - t0), tl->rss->v[i].rss_bytes);
	fputs("]", out);
	if (tl->count)
		fprintf(out, ",\"peak\":[%" PRIu64 ",%" PRIu64 "]",
			tl->points[peak].time_ns > t0 ? tl->points[peak].time_ns - t0 : 0,
			tl->points[peak].heap_bytes);
	fputs("}", out);
}

/* The page's data (the JSON blob) into a memory buffer; NULL when out of
 * memory. */
static char *page_data(const struct profile *p, const uint32_t *site_node, const uint32_t *pos,
		       size_t *bytes)
{
	struct output_options summary_only = {.top_n = 0, .top_n_given = true};
	char *buf = NULL;
	FILE *mem = open_memstream(&buf, bytes);

	if (!mem)
		return NULL;
	fputs("{\"report\":", mem);
	output_json.write(mem, p, &summary_only);
	fputs(",\n", mem);
	write_metrics(mem, p);
	fputs(",\n", mem);
	write_sites(mem, p, site_node, pos);
	fputs(",\n", mem);
	write_timeline(mem, p);
	fputs("}", mem);
	if (fclose(mem) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* Every site's stack, with its values of the ranked metrics (0 for one the
 * profile lacks), into tree;
 * site_node[i] the node of site i, pos[node] its place in the blob's
 * "nodes" (depth-first order).  Returns 0 or a negative errno. */
static int flame_tree(struct stack_tree *tree, const struct profile *p, uint32_t *site_node,
		      uint32_t **pos)
{
	const struct site_table *t = &p->sites;
	int rc = stack_tree_init(tree, METRIC_RANKED);

	*pos = NULL;
	for (size_t i = 0; rc == 0 && i < t->count; i++) {
		uint64_t values[METRIC_RANKED];

		for (int m = 0; m < METRIC_RANKED; m++)
			values[m] = profile_has_metric(p, (enum metric)m)
				? metric_site_value(&t->sites[i], (enum metric)m) : 0;
		rc = stack_tree_add_site(tree, t, &t->sites[i], NULL, values);
		site_node[i] = tree->last;
	}
	if (rc == 0)
		rc = stack_tree_sort(tree);
	if (rc == 0 && !(*pos = malloc(tree->count * sizeof(**pos))))
		rc = -ENOMEM;
	for (size_t i = 1; rc == 0 && i < tree->count; i++)
		(*pos)[tree->order[i]] = (uint32_t)(i - 1);
	return rc;
}

/* The flame graph of every ranked metric as one blob: {"template": the
 * flame graph page, its placeholders left, "data": its data (flame_data.h)
 * with a column per ranked metric}, into out (a script-safe stream).
 * Returns 0 or -ENOMEM. */
static int write_flames(FILE *out, const struct profile *p, const struct stack_tree *tree)
{
	const struct site_table *t = &p->sites;
	const char *columns[METRIC_RANKED];
	size_t key_count = t->frame_count + 2;
	struct flame_key *keys = malloc(key_count * sizeof(*keys));
	int rc;

	if (!keys)
		return -ENOMEM;
	for (size_t k = 0; k < key_count; k++)
		keys[k] = (struct flame_key){t, (uint32_t)k, NULL, false};
	for (int m = 0; m < METRIC_RANKED; m++)
		columns[m] = metric_info((enum metric)m)->name;
	fputs("{\"template\":", out);
	output_json_string(out, output_asset_flamegraph_html);
	fputs(",\n\"data\":{", out);
	flame_data_schema(out);
	flame_data_run(out, p);
	fputc(',', out);
	flame_data_metric(out, METRIC_PEAK, profile_metric_qualifier(p, METRIC_PEAK));
	fputc(',', out);
	rc = flame_data_tree(out, tree, keys, key_count, columns);
	fputs("}}", out);
	free(keys);
	return rc;
}

/* Writes data (bytes) and the flamegraph pages as the page's two data
 * blocks.  Returns 0 or -ENOMEM. */
static int write_data_blocks(FILE *out, const struct profile *p, const struct stack_tree *tree,
			     const char *data, size_t bytes)
{
	FILE *safe;
	int rc;

	fputs("<script type=\"application/json\" id=\"mprof-data\">", out);
	if (!(safe = output_script_json_open(out)))
		return -ENOMEM;
	fwrite(data, 1, bytes, safe);
	if (fclose(safe) != 0)
		return -ENOMEM;
	fputs("</script>\n<script type=\"application/json\" id=\"mprof-flames\">", out);
	if (!(safe = output_script_json_open(out)))
		return -ENOMEM;
	rc = write_flames(safe, p, tree);
	if (fclose(safe) != 0 || rc < 0)
		return -ENOMEM;
	fputs("</script>\n", out);
	return 0;
}

/* The page's title: "mprof: PROGRAM" (its file name), else the trace's. */
static void write_title(FILE *out, const struct profile *p)
{
	const char *name = p->run.exe ? output_base_name(p->run.exe) : output_base_name(p->info.path);

	fputs("<title>mprof: ", out);
	output_html_text(out, name);
	fputs("</title>\n", out);
}

static int html_write(FILE *out, const struct profile *p, const struct output_options *o)
{
	size_t bytes = 0;
	uint32_t *site_node = malloc((p->sites.count + 1) * sizeof(*site_node)), *pos = NULL;
	struct stack_tree tree;
	char *data = NULL;
	int rc = site_node ? flame_tree(&tree, p, site_node, &pos) : -ENOMEM;

	(void)o;
	if (rc == 0 && !(data = page_data(p, site_node, pos, &bytes)))
		rc = -ENOMEM;
	if (rc == 0) {
		fputs("<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n", out);
		write_title(out, p);
		fputs("<style>\n", out);
		fputs(output_asset_report_css, out);
		fputs("</style>\n</head>\n<body>\n<div id=\"app\"><noscript>This page needs JavaScript."
		      "</noscript></div>\n", out);
		rc = write_data_blocks(out, p, &tree, data, bytes);
	}
	if (rc == 0) {
		fputs("<script id=\"mprof-format\">\n", out);
		fputs(output_asset_format_js, out);
		fputs("</script>\n<script>\n", out);
		fputs(output_asset_report_js, out);
		fputs("</script>\n</body>\n</html>\n", out);
	}
	if (site_node)
		stack_tree_free(&tree);
	free(site_node);
	free(pos);
	free(data);
	return rc < 0 ? rc : 0;
}

const struct output_format output_html = {
	.name = "html",
	.summary = "a self-contained page: summary, heap over time, sites",
	.write = html_write,
};
