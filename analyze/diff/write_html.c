/*
 * analyze/diff/write_html.c - `mprof diff --format html`: one
 * self-contained page that works offline from file://: the totals side by
 * side with their change (as the text diff), the sites that grew and that
 * shrank with their stacks (new and vanished marked, or not in a sampled
 * side's samples, as the text diff says), the --fail-if
 * verdict, and the differential flame graph with a metric switch.
 *
 * The page is assets/diff.js (with assets/format.js and report.css) around
 * three JSON blocks, each through output_script_json_open so no trace
 * content can end them:
 *   #mprof-diff  {"a", "b", "match", "totals": as `--format json` writes
 *                them (write_json.c), "sites": [[status ("changed", "added",
 *                "removed"), node (its stack: that node's path to the root
 *                in the flame data below, innermost first; -1 none), A's
 *                site id or null, B's, A's sites summed, B's, flags (1
 *                unknown stack, 2 inherited), A's value of each field in
 *                "fields" order (the first 7, not rss)..., B's..., then,
 *                when a trace is sampled, the 95% margin of each one's
 *                change, as "delta_ci95" (null: the field has none)]]}: every
 *                entry that differs, as in the JSON, without the frames
 *                written out again for each (a diff of two python3 runs
 *                is 190 MB of JSON);
 *   #mprof-page  {"metric": --metric's name,
 *                 "fields": [{"name", "key", "label", "bytes": bool,
 *                           "qualifier": str or null}] the totals'
 *                           figures in the text diff's order,
 *                 "a", "b": {"program": str or null, "kind": str,
 *                            "sampled": bool},
 *                 "gate": null (no --fail-if) or {"conditions": [str],
 *                         "held": int, "undecided": int (on an upper
 *                         bound, gate.c), "text": what the gate printed},
 *                 "flame": {"template": the flame graph page (its
 *                           placeholders left), "data": diff_flame_data of
 *                           --metric and the ranked metrics}};
 * the script makes each metric's flame graph page from "flame" itself.
 * Owns nothing past a call.
 */
#define _GNU_SOURCE /* open_memstream */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/diff/diff.h"
#include "analyze/output/flame_data.h"
#include "analyze/output/frames.h"
#include "analyze/output/html_text.h"
#include "analyze/output/output.h"
#include "analyze/output/script_json.h"

extern const char output_asset_report_css[], output_asset_diff_js[], output_asset_format_js[];
extern const char output_asset_flamegraph_html[];

static void side(FILE *out, const struct profile *p)
{
	char composed[4096];

	fputs("{\"program\":", out);
	output_json_string(out, flame_data_program(p, composed, sizeof(composed)));
	fputs(",\"kind\":", out);
	output_json_string(out, output_report_kind(p));
	fprintf(out, ",\"sampled\":%s}", p->info.sampled ? "true" : "false");
}

static void gate(FILE *out, const struct diff_print *o)
{
	if (!o->condition_count) {
		fputs("null", out);
		return;
	}
	fputs("{\"conditions\":[", out);
	for (size_t i = 0; i < o->condition_count; i++) {
		fputs(i ? "," : "", out);
		output_json_string(out, o->conditions[i].text);
	}
	fprintf(out, "],\"held\":%zu,\"undecided\":%zu,\"text\":", o->held, o->undecided);
	output_json_string(out, o->gate ? o->gate : "");
	fputc('}', out);
}

/* #mprof-page's object (above). */
static int page_block(FILE *out, const struct diff *d, const struct diff_print *o,
		      const struct diff_flame *flame)
{
	fputs("{\"metric\":", out);
	output_json_string(out, diff_field_name(o->metric));
	fputs(",\"fields\":[", out);
	for (int f = 0; f < DF_COUNT; f++) {
		fputs(f ? ",{\"name\":" : "{\"name\":", out);
		output_json_string(out, diff_field_name((enum diff_field)f));
		fputs(",\"key\":", out);
		output_json_string(out, diff_field_key((enum diff_field)f));
		fputs(",\"label\":", out);
		output_json_string(out, diff_field_label((enum diff_field)f));
		fprintf(out, ",\"bytes\":%s,\"qualifier\":",
			diff_field_bytes((enum diff_field)f) ? "true" : "false");
		output_json_string(out, diff_field_qualifier(d, f));
		fputc('}', out);
	}
	fputs("],\"a\":", out);
	side(out, d->pa);
	fputs(",\"b\":", out);
	side(out, d->pb);
	fputs(",\"gate\":", out);
	gate(out, o);
	fputs(",\n\"flame\":{\"template\":", out);
	output_json_string(out, output_asset_flamegraph_html);
	fputs(",\n\"data\":", out);
	if (diff_flame_write(out, flame, d) < 0)
		return -ENOMEM;
	fputs("}}", out);
	return 0;
}

static void id_or_null(FILE *out, const struct diff_side *s)
{
	if (s->site)
		fprintf(out, ",%" PRIu32, s->site->id);
	else
		fputs(",null", out);
}

/* A site's 95% margin of each field's change, as the text diff writes it
 * ("(+266632 \u00b1703538)"): null for a field that has none. */
static void site_margins(FILE *out, const struct diff *d, const struct diff_entry *e)
{
	for (int f = 0; f < DF_SITE_COUNT; f++) {
		if (diff_field_has_margin(d, f))
			fprintf(out, ",%" PRIu64, diff_change_ci95(e->a.var[f], e->b.var[f]));
		else
			fputs(",null", out);
	}
}

/* #mprof-diff's object (above). */
static void diff_block(FILE *out, const struct diff *d, const struct diff_print *o,
		       const struct diff_flame *flame)
{
	static const char *const status[] = {"changed", "added", "removed", "same"};
	bool sampled = d->pa->info.sampled || d->pb->info.sampled;

	fputc('{', out);
	diff_write_json_head(out, d, o);
	fputs(",\n\"sites\":[", out);
	for (size_t i = 0; i < d->differ; i++) {
		const struct diff_entry *e = &d->entries[i];
		const struct site_table *t;
		const struct site *s = diff_entry_site(d, e, &t);
		uint32_t node = flame->entry_node[i];

		fprintf(out, "%s[\"%s\",", i ? ",\n" : "\n", status[e->status]);
		if (node == UINT32_MAX || !s->frame_count || s->unknown_stack || s->inherited)
			fputs("-1", out);
		else
			fprintf(out, "%" PRIu32, node);
		id_or_null(out, &e->a);
		id_or_null(out, &e->b);
		fprintf(out, ",%" PRIu32 ",%" PRIu32 ",%d", e->a.sites, e->b.sites,
			(s->unknown_stack ? 1 : 0) | (s->inherited ? 2 : 0));
		for (int f = 0; f < DF_SITE_COUNT; f++)
			fprintf(out, ",%" PRIu64, e->a.v[f]);
		for (int f = 0; f < DF_SITE_COUNT; f++)
			fprintf(out, ",%" PRIu64, e->b.v[f]);
		if (sampled)
			site_margins(out, d, e);
		fputc(']', out);
	}
	fputs("]}", out);
}

/* One <script type="application/json" id=ID> element whose content is what
 * write(safe stream) writes.  Returns 0 or -ENOMEM. */
static int json_block(FILE *out, const char *id, int (*write)(FILE *, void *), void *ctx)
{
	FILE *safe;
	int rc;

	fprintf(out, "<script type=\"application/json\" id=\"%s\">", id);
	if (!(safe = output_script_json_open(out)))
		return -ENOMEM;
	rc = write(safe, ctx);
	if (fclose(safe) != 0 || rc < 0)
		return -ENOMEM;
	fputs("</script>\n", out);
	return 0;
}

struct html_ctx {
	struct diff *d;
	const struct diff_print *o;
	const struct diff_flame *flame;
};

static int write_diff_json(FILE *out, void *ctx)
{
	struct html_ctx *h = ctx;

	diff_block(out, h->d, h->o, h->flame);
	return 0;
}

static int write_page_block(FILE *out, void *ctx)
{
	struct html_ctx *h = ctx;

	return page_block(out, h->d, h->o, h->flame);
}

/* The title: "mprof diff: PROGRAM" (B's file name), else B's trace's. */
static void write_title(FILE *out, const struct diff *d)
{
	const struct profile *p = d->pb;
	const char *name = p->run.exe ? output_base_name(p->run.exe) : output_base_name(p->info.path);

	fputs("<title>mprof diff: ", out);
	output_html_text(out, name);
	fputs("</title>\n", out);
}

int diff_write_html(FILE *out, struct diff *d, const struct diff_print *o)
{
	enum diff_field fields[DF_SITE_COUNT];
	struct diff_flame flame;
	struct html_ctx h = {d, o, &flame};
	size_t count = 0;
	int rc;

	/* --metric first, then the other ranked metrics both sides have */
	fields[count++] = o->metric;
	for (int f = DF_PEAK; f <= DF_TEMPORARY; f++) {
		bool ka, kb;

		if (f != (int)o->metric && diff_field_known(d, f, &ka, &kb))
			fields[count++] = (enum diff_field)f;
	}
	rc = diff_flame_build(&flame, d, fields, count);
	if (rc == 0) {
		fputs("<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n", out);
		write_title(out, d);
		fputs("<style>\n", out);
		fputs(output_asset_report_css, out);
		fputs("</style>\n</head>\n<body>\n<div id=\"app\"><noscript>This page needs "
		      "JavaScript.</noscript></div>\n", out);
		if (json_block(out, "mprof-diff", write_diff_json, &h) < 0 ||
		    json_block(out, "mprof-page", write_page_block, &h) < 0)
			rc = -ENOMEM;
	}
	if (rc == 0) {
		fputs("<script id=\"mprof-format\">\n", out);
		fputs(output_asset_format_js, out);
		fputs("</script>\n<script>\n", out);
		fputs(output_asset_diff_js, out);
		fputs("</script>\n</body>\n</html>\n", out);
	}
	diff_flame_free(&flame);
	return rc < 0 ? -ENOMEM : 0;
}
