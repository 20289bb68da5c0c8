/*
 * analyze/output/flamegraph.c - an interactive flame graph of one trace in
 * one self-contained HTML page (`mprof report --format flamegraph`): the
 * page (assets/flamegraph.html, built in as a C string) with the merged
 * call stacks of the sites that have a value of --metric embedded as JSON.
 * The page draws them, zooms, searches and turns them upside down (the
 * allocating functions first) by itself; nothing is fetched.
 *
 * Stacks are merged by frame (function, file, line, module, inlining), so
 * a frame's box has one file:line.  The embedded data, schema
 * "mprof-flamegraph" version 1 (values in the metric's unit, weighted):
 *
 *   {"schema": "mprof-flamegraph", "schema_version": 1,
 *    "trace": str, "program": str or null (command line, else executable),
 *    "exe": str or null (the executable's file name), "pid": int or null,
 *    "sampled": bool, "kind": str (exact or estimates, as the text report),
 *    "notes": [str] (what qualifies the numbers, as the text report's),
 *    "metric": {"name": str, "label": str, "bytes": bool},
 *    "total": int (the sum of the nodes' "self"),
 *    "frames": [[name, file or null, line (0 unknown), module or null,
 *                inlined (0 or 1)], ...],
 *    "nodes": [frame, parent, self, allocations, ...]}   four ints a node,
 *        depth first (a parent before its children), parent -1 for an
 *        outermost frame; self and allocations summed over the sites whose
 *        stack ends there
 *
 * Owns nothing past write.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/output/frames.h"
#include "analyze/output/output.h"
#include "analyze/output/script_json.h"
#include "analyze/output/stack_tree.h"

/* The page (assets/flamegraph.html, embedded by assets/embed.sh). */
extern const char output_asset_flamegraph_html[];

#define FLAMEGRAPH_TITLE_MAX 160 /* bytes of the command line in <title> */

/* The frames of every site with a value, merged by frame; the stackless
 * sites under two frames of their own (frame_count and frame_count + 1). */
static int flamegraph_tree_make(struct stack_tree *tree, const struct profile *p, enum metric m)
{
	const struct site_table *t = &p->sites;
	uint32_t *keys = malloc(SITES_MAX_FRAMES * sizeof(*keys));
	int rc = keys ? stack_tree_init(tree) : -ENOMEM;

	for (size_t i = 0; rc == 0 && i < t->count; i++) {
		const struct site *s = &t->sites[i];
		const uint32_t *ids = site_frame_ids(t, s);
		uint64_t v = metric_site_value(s, m);
		size_t n = s->frame_count < SITES_MAX_FRAMES ? s->frame_count : SITES_MAX_FRAMES;

		if (!v)
			continue;
		if (s->unknown_stack || s->inherited || n == 0) {
			keys[0] = (uint32_t)t->frame_count + (s->inherited ? 1 : 0);
			n = 1;
		} else {
			for (size_t k = 0; k < n; k++)
				keys[k] = ids[n - 1 - k];
		}
		rc = stack_tree_add(tree, keys, n, v, metric_site_value(s, METRIC_ALLOCATIONS));
	}
	free(keys);
	return rc ? rc : stack_tree_sort(tree);
}

/* s as HTML text (for <title>), at most max bytes of it (not cutting a
 * UTF-8 sequence), with "..." when cut. */
static void html_text(FILE *out, const char *s, size_t max)
{
	size_t n = strlen(s);
	bool cut = n > max;

	if (cut)
		for (n = max; n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80; n--)
			;
	for (size_t i = 0; i < n; i++) {
		switch (s[i]) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		default:
			fputc((unsigned char)s[i] < 0x20 ? ' ' : s[i], out);
		}
	}
	if (cut)
		fputs("...", out);
}

static const char *flamegraph_program(const struct profile *p)
{
	return p->run.cmdline && p->run.cmdline[0] ? p->run.cmdline : p->run.exe;
}

static void flamegraph_title(FILE *out, const struct profile *p, enum metric m)
{
	const char *program = flamegraph_program(p);

	fprintf(out, "%s: ", metric_info(m)->label);
	html_text(out, program ? program : p->info.path, FLAMEGRAPH_TITLE_MAX);
	fputs(" - mprof flame graph", out);
}

/* The notes of the text report's header that qualify the numbers, as a
 * JSON list of strings. */
static void flamegraph_notes(FILE *out, const struct profile *p)
{
	const struct run_facts *run = &p->run;
	char note[1024];
	int n = 0;

	fputc('[', out);
	if (profile_ended_early(p)) {
		snprintf(note, sizeof(note), "ended early: %s; blocks still live then are not known "
			 "to be leaks", run->ended_early);
		fputs(n++ ? "," : "", out);
		output_json_string(out, note);
	}
	if (run->data_lost[0]) {
		snprintf(note, sizeof(note), "data lost: %s: the figures are short of the program's",
			 run->data_lost);
		fputs(n++ ? "," : "", out);
		output_json_string(out, note);
	}
	if (run->foreign_malloc) {
		fputs(n++ ? "," : "", out);
		output_json_string(out, "the program's own malloc was not recorded");
	}
	if (run->own_heap_runtime) {
		snprintf(note, sizeof(note), "%s manages a heap of its own%s%s%s; mprof sees only the "
			 "blocks it takes from malloc, not its objects", run->own_heap_runtime,
			 run->own_heap_unless ? " (unless " : "",
			 run->own_heap_unless ? run->own_heap_unless : "",
			 run->own_heap_unless ? ")" : "");
		fputs(n++ ? "," : "", out);
		output_json_string(out, note);
	}
	if (run->rss_mostly_unseen) {
		fputs(n++ ? "," : "", out);
		output_json_string(out, "peak RSS is many times the heap peak: most of the memory is "
			 "not malloc blocks (a bundled allocator, mmap, a runtime's heap), which "
			 "mprof does not see");
	}
	fputc(']', out);
}

/* One frame as ["name", "file", line, "module", inlined]; key past the
 * site table's frames: a stackless site's. */
static void flamegraph_frame(FILE *out, const struct site_table *t, uint32_t key)
{
	const struct site_frame *f;
	char buf[512];
	bool module;

	fputc('[', out);
	if (key >= t->frame_count) {
		output_json_string(out, key == t->frame_count ? "[no stack]" : "[inherited at fork]");
		fputs(",null,0,null,0]", out);
		return;
	}
	f = &t->frames[key];
	module = f->module && strcmp(f->module, "?") != 0;
	output_json_string(out, output_frame_name(f, buf, sizeof(buf)));
	fputc(',', out);
	output_json_string(out, f->file);
	fprintf(out, ",%" PRIu32 ",", f->line);
	output_json_string(out, module ? output_base_name(f->module) : NULL);
	fprintf(out, ",%d]", f->inlined ? 1 : 0);
}

/* The data the page draws (the schema above). */
static int flamegraph_data(FILE *out, const struct profile *p, enum metric m,
			   const struct stack_tree *tree)
{
	const struct site_table *t = &p->sites;
	const struct metric_info *mi = metric_info(m);
	const char *program = flamegraph_program(p);
	size_t keys = t->frame_count + 2, frames = 0;
	uint32_t *remap = malloc(keys * sizeof(*remap));   /* key -> frame index */
	uint32_t *pos = malloc(tree->count * sizeof(*pos)); /* node -> place in "nodes" */
	uint64_t total = 0;

	if (!remap || !pos) {
		free(remap);
		free(pos);
		return -ENOMEM;
	}
	memset(remap, 0xff, keys * sizeof(*remap));
	for (size_t i = 1; i < tree->count; i++) {
		const struct stack_tree_node *nd = &tree->nodes[tree->order[i]];

		pos[tree->order[i]] = (uint32_t)(i - 1);
		if (remap[nd->key] == UINT32_MAX)
			remap[nd->key] = (uint32_t)frames++;
		total += nd->self_value;
	}
	fputs("{\"schema\":\"mprof-flamegraph\",\"schema_version\":1,\"trace\":", out);
	output_json_string(out, p->info.path);
	fputs(",\"program\":", out);
	output_json_string(out, program);
	fputs(",\"exe\":", out);
	output_json_string(out, p->run.exe ? output_base_name(p->run.exe) : NULL);
	if (p->run.has_pid)
		fprintf(out, ",\"pid\":%" PRIu64, p->run.pid);
	else
		fputs(",\"pid\":null", out);
	fprintf(out, ",\"sampled\":%s,\"kind\":", p->info.sampled ? "true" : "false");
	output_json_string(out, output_report_kind(p));
	fputs(",\"notes\":", out);
	flamegraph_notes(out, p);
	fputs(",\"metric\":{\"name\":", out);
	output_json_string(out, mi->name);
	fputs(",\"label\":", out);
	output_json_string(out, mi->label);
	fprintf(out, ",\"bytes\":%s},\"total\":%" PRIu64 ",\n\"frames\":[", mi->bytes ? "true" : "false",
		total);
	/* frames in the order of their first node */
	for (size_t i = 1, next = 0; i < tree->count; i++) {
		uint32_t key = tree->nodes[tree->order[i]].key;

		if (remap[key] != next)
			continue;
		if (next++)
			fputs(",\n", out);
		flamegraph_frame(out, t, key);
	}
	fputs("],\n\"nodes\":[", out);
	for (size_t i = 1; i < tree->count; i++) {
		const struct stack_tree_node *nd = &tree->nodes[tree->order[i]];

		if (i > 1)
			fputs(i % 8 == 1 ? ",\n" : ",", out);
		fprintf(out, "%" PRIu32 ",", remap[nd->key]);
		if (nd->parent == STACK_TREE_ROOT)
			fputs("-1", out);
		else
			fprintf(out, "%" PRIu32, pos[nd->parent]);
		fprintf(out, ",%" PRIu64 ",%" PRIu64, nd->self_value, nd->self_count);
	}
	fputs("]}", out);
	free(remap);
	free(pos);
	return 0;
}

/* The page, its placeholders @MPROF_TITLE@ and @MPROF_DATA@ filled in. */
static int flamegraph_page_write(FILE *out, const struct profile *p, enum metric m,
				 const struct stack_tree *tree)
{
	static const char title[] = "@MPROF_TITLE@", data[] = "@MPROF_DATA@";
	const char *at = output_asset_flamegraph_html, *mark;
	int rc = 0;

	while ((mark = strchr(at, '@'))) {
		fwrite(at, 1, (size_t)(mark - at), out);
		if (strncmp(mark, title, sizeof(title) - 1) == 0) {
			flamegraph_title(out, p, m);
			at = mark + sizeof(title) - 1;
		} else if (strncmp(mark, data, sizeof(data) - 1) == 0) {
			FILE *js = output_script_json_open(out);

			if (!js)
				return -ENOMEM;
			rc = flamegraph_data(js, p, m, tree);
			fclose(js);
			if (rc < 0)
				return rc;
			at = mark + sizeof(data) - 1;
		} else {
			fputc('@', out);
			at = mark + 1;
		}
	}
	fputs(at, out);
	return 0;
}

static int flamegraph_write(FILE *out, const struct profile *p, const struct output_options *o)
{
	struct stack_tree tree;
	int rc;

	memset(&tree, 0, sizeof(tree));
	rc = flamegraph_tree_make(&tree, p, o->metric);
	if (rc == 0)
		rc = flamegraph_page_write(out, p, o->metric, &tree);
	stack_tree_free(&tree);
	return rc < 0 ? rc : 0;
}

const struct output_format output_flamegraph = {
	.name = "flamegraph",
	.summary = "a self-contained flame graph page of --metric",
	.write = flamegraph_write,
};
