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
 *    "metrics": [{"name", "key", "label", "bytes": bool}],
 *    "frames": [[function or null, file or null, line, module file name,
 *                inlined (0/1), offset in the module]],  the distinct frames
 *    "sites": [[id, [frame index, innermost first], value of each metric in
 *               "metrics" order..., max_live_bytes, freed, lifetime_ns_avg or
 *               null, stacks merged, flags (1 unknown stack, 2 inherited,
 *               4 truncated)]]}
 *
 * and, in a second block, the flamegraph page (flamegraph.c) of each
 * ranked metric as a JSON string, {"peak": PAGE, "leaked": PAGE, ...}, that
 * the report shows in a frame (srcdoc) and switches between.  Both blocks
 * go through output_script_json_open, so no trace content can end them.
 */
#define _GNU_SOURCE /* open_memstream */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/output/frames.h"
#include "analyze/output/output.h"
#include "analyze/output/script_json.h"

extern const char output_asset_report_css[], output_asset_report_js[];

static void write_metrics(FILE *out)
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
		fprintf(out, ",\"bytes\":%s}", mi->bytes ? "true" : "false");
	}
	fputc(']', out);
}

static void write_frames(FILE *out, const struct site_table *t)
{
	fputs("\"frames\":[", out);
	for (size_t i = 0; i < t->frame_count; i++) {
		const struct site_frame *f = &t->frames[i];

		fputs(i ? ",\n[" : "\n[", out);
		output_json_string(out, f->function);
		fputc(',', out);
		output_json_string(out, f->file);
		fprintf(out, ",%" PRIu32 ",", f->line);
		output_json_string(out, f->module ? output_base_name(f->module) : NULL);
		fprintf(out, ",%d,%" PRIu64 "]", f->inlined ? 1 : 0, f->module_offset);
	}
	fputc(']', out);
}

static void write_sites(FILE *out, const struct site_table *t)
{
	fputs("\"sites\":[", out);
	for (size_t i = 0; i < t->count; i++) {
		const struct site *s = &t->sites[i];
		const uint32_t *ids = site_frame_ids(t, s);
		const struct alloc_stats *st = s->s;

		fprintf(out, "%s[%" PRIu32 ",[", i ? ",\n" : "\n", s->id);
		for (uint32_t k = 0; k < s->frame_count; k++)
			fprintf(out, "%s%" PRIu32, k ? "," : "", ids[k]);
		fputc(']', out);
		for (int m = 0; m < METRIC_COUNT; m++)
			fprintf(out, ",%" PRIu64, metric_site_value(s, (enum metric)m));
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

/* The page's data (the JSON blob) into a memory buffer; NULL when out of
 * memory. */
static char *page_data(const struct profile *p, size_t *bytes)
{
	struct output_options summary_only = {.top_n = 0, .top_n_given = true};
	char *buf = NULL;
	FILE *mem = open_memstream(&buf, bytes);

	if (!mem)
		return NULL;
	fputs("{\"report\":", mem);
	output_json.write(mem, p, &summary_only);
	fputs(",\n", mem);
	write_metrics(mem);
	fputs(",\n", mem);
	write_frames(mem, &p->sites);
	fputs(",\n", mem);
	write_sites(mem, &p->sites);
	fputs("}", mem);
	if (fclose(mem) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* The flamegraph page of each ranked metric, as one JSON object of strings,
 * into out (a script-safe stream).  Returns 0 or -ENOMEM. */
static int write_flames(FILE *out, const struct profile *p)
{
	fputc('{', out);
	for (int m = 0; m < METRIC_RANKED; m++) {
		struct output_options fo = {.metric = (enum metric)m, .metric_given = true};
		char *page = NULL;
		size_t bytes = 0;
		FILE *mem = open_memstream(&page, &bytes);
		int rc;

		if (!mem)
			return -ENOMEM;
		rc = output_flamegraph.write(mem, p, &fo);
		if (fclose(mem) != 0 || rc < 0) {
			free(page);
			return -ENOMEM;
		}
		fprintf(out, "%s\"%s\":", m ? "," : "", metric_info((enum metric)m)->name);
		output_json_string(out, page);
		free(page);
	}
	fputc('}', out);
	return 0;
}

/* Writes data (bytes) and the flamegraph pages as the page's two data
 * blocks.  Returns 0 or -ENOMEM. */
static int write_data_blocks(FILE *out, const struct profile *p, const char *data, size_t bytes)
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
	rc = write_flames(safe, p);
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
	for (const char *c = name; *c; c++) {
		if (*c == '<')
			fputs("&lt;", out);
		else if (*c == '&')
			fputs("&amp;", out);
		else
			putc(*c, out);
	}
	fputs("</title>\n", out);
}

static int html_write(FILE *out, const struct profile *p, const struct output_options *o)
{
	size_t bytes = 0;
	char *data = page_data(p, &bytes);

	(void)o;
	if (!data)
		return -ENOMEM;
	fputs("<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n", out);
	write_title(out, p);
	fputs("<style>\n", out);
	fputs(output_asset_report_css, out);
	fputs("</style>\n</head>\n<body>\n<div id=\"app\"><noscript>This page needs JavaScript."
	      "</noscript></div>\n", out);
	if (write_data_blocks(out, p, data, bytes) < 0) {
		free(data);
		return -ENOMEM;
	}
	fputs("<script>\n", out);
	fputs(output_asset_report_js, out);
	fputs("</script>\n</body>\n</html>\n", out);
	free(data);
	return 0;
}

const struct output_format output_html = {
	.name = "html",
	.summary = "a self-contained page: summary, heap over time, sites",
	.write = html_write,
};
